//! The table of risky options, per program (documented in the parent
//! module).

use super::getopt::Style;

/// A program's entry in the table.
pub(super) struct Entry {
    /// The program, or `git <subcommand>`.
    pub(super) program: &'static str,
    /// How it reads its options.
    pub(super) style: Style,
    /// The risky options and why.
    pub(super) risky: &'static [(&'static str, &'static str)],
}

const WRITES_FILE: &str = "writes its output to a file";
const RUNS_PROGRAM: &str = "runs another program";

const SORT: Style = Style::Getopt {
    values: "kotST",
    optional: "",
    long_values: &[
        "--key",
        "--output",
        "--field-separator",
        "--buffer-size",
        "--temporary-directory",
        "--compress-program",
        "--files0-from",
        "--batch-size",
        "--parallel",
        "--random-source",
        "--sort",
    ],
    abbreviations: true,
};

const SED: Style = Style::Getopt {
    values: "efl",
    optional: "i",
    long_values: &["--expression", "--file", "--line-length"],
    abbreviations: true,
};

const AWK: Style = Style::Getopt {
    values: "FvfiElW",
    optional: "opdDL",
    long_values: &[
        "--field-separator",
        "--assign",
        "--file",
        "--include",
        "--load",
        "--exec",
    ],
    abbreviations: true,
};

const AWK_RISKY: &[(&str, &str)] = &[
    (
        "-f",
        "reads its program from a file, which cannot be judged",
    ),
    (
        "--file",
        "reads its program from a file, which cannot be judged",
    ),
    ("-i", "loads a source file"),
    ("--include", "loads a source file"),
    ("-l", "loads an extension library"),
    ("--load", "loads an extension library"),
    (
        "-E",
        "reads its program from a file, which cannot be judged",
    ),
    (
        "--exec",
        "reads its program from a file, which cannot be judged",
    ),
    ("-o", WRITES_FILE),
    ("--pretty-print", WRITES_FILE),
    ("-p", WRITES_FILE),
    ("--profile", WRITES_FILE),
    ("-d", WRITES_FILE),
    ("--dump-variables", WRITES_FILE),
    ("-D", "starts a debugger"),
    ("--debug", "starts a debugger"),
    (
        "-W",
        "takes implementation options (`-W exec`, `-W dump`) that run or write files",
    ),
];

const GIT_DIFF_RISKY: &[(&str, &str)] = &[
    ("--output", WRITES_FILE),
    (
        "--ext-diff",
        "runs the external diff program the repository configures",
    ),
    (
        "--textconv",
        "runs the text conversion programs the repository configures",
    ),
    (
        "--show-signature",
        "runs the signature program the repository configures",
    ),
];

const GIT_OPTIONS: Style = Style::Getopt {
    values: "",
    optional: "",
    long_values: &[],
    abbreviations: false,
};

pub(super) const TABLE: &[Entry] = &[
    Entry {
        program: "sort",
        style: SORT,
        risky: &[
            ("-o", WRITES_FILE),
            ("--output", WRITES_FILE),
            (
                "--compress-program",
                "runs a program to compress temporary files",
            ),
        ],
    },
    Entry {
        program: "find",
        style: Style::Words,
        risky: &[
            ("-delete", "deletes the files it finds"),
            ("-fprint", WRITES_FILE),
            ("-fprint0", WRITES_FILE),
            ("-fprintf", WRITES_FILE),
            ("-fls", WRITES_FILE),
        ],
    },
    Entry {
        program: "rg",
        style: Style::Getopt {
            values: "ABCEefgjMmrTtd",
            optional: "",
            long_values: &["--pre", "--hostname-bin"],
            abbreviations: false,
        },
        risky: &[
            ("--pre", "runs a program on every file it searches"),
            ("-z", "runs decompression programs on the files it searches"),
            (
                "--search-zip",
                "runs decompression programs on the files it searches",
            ),
            ("--hostname-bin", RUNS_PROGRAM),
        ],
    },
    Entry {
        program: "tar",
        style: Style::Getopt {
            values: "bCfFgHIKLNTVX",
            optional: "",
            long_values: &[
                "--file",
                "--directory",
                "--to-command",
                "--use-compress-program",
                "--checkpoint-action",
                "--info-script",
                "--new-volume-script",
                "--rsh-command",
                "--rmt-command",
                "--index-file",
            ],
            abbreviations: true,
        },
        risky: &[
            ("--to-command", "pipes extracted files into a program"),
            ("--use-compress-program", RUNS_PROGRAM),
            ("-I", RUNS_PROGRAM),
            ("--checkpoint-action", RUNS_PROGRAM),
            ("--info-script", RUNS_PROGRAM),
            ("--new-volume-script", RUNS_PROGRAM),
            ("-F", RUNS_PROGRAM),
            ("--rsh-command", RUNS_PROGRAM),
            ("--rmt-command", RUNS_PROGRAM),
            ("--index-file", WRITES_FILE),
        ],
    },
    Entry {
        program: "sed",
        style: SED,
        risky: &[
            ("-i", "edits files in place"),
            ("--in-place", "edits files in place"),
            ("-f", "reads its script from a file, which cannot be judged"),
            (
                "--file",
                "reads its script from a file, which cannot be judged",
            ),
        ],
    },
    Entry {
        program: "awk",
        style: AWK,
        risky: AWK_RISKY,
    },
    Entry {
        program: "gawk",
        style: AWK,
        risky: AWK_RISKY,
    },
    Entry {
        program: "mawk",
        style: AWK,
        risky: AWK_RISKY,
    },
    Entry {
        program: "nawk",
        style: AWK,
        risky: AWK_RISKY,
    },
    Entry {
        program: "git diff",
        style: GIT_OPTIONS,
        risky: GIT_DIFF_RISKY,
    },
    // Every other git subcommand (see `lookup`).
    Entry {
        program: "git",
        style: GIT_OPTIONS,
        risky: GIT_DIFF_RISKY,
    },
    Entry {
        program: "git log",
        style: GIT_OPTIONS,
        risky: GIT_DIFF_RISKY,
    },
    Entry {
        program: "git show",
        style: GIT_OPTIONS,
        risky: GIT_DIFF_RISKY,
    },
    Entry {
        program: "git cat-file",
        style: GIT_OPTIONS,
        risky: &[
            (
                "--textconv",
                "runs the text conversion programs the repository configures",
            ),
            (
                "--filters",
                "runs the filter programs the repository configures",
            ),
        ],
    },
    Entry {
        program: "git blame",
        style: GIT_OPTIONS,
        risky: &[
            (
                "--textconv",
                "runs the text conversion programs the repository configures",
            ),
            ("--contents", "reads the file's contents from elsewhere"),
        ],
    },
    Entry {
        program: "git grep",
        style: Style::Getopt {
            values: "",
            optional: "O",
            long_values: &[],
            abbreviations: false,
        },
        risky: &[
            ("-O", "opens the files it finds in a pager or editor"),
            (
                "--open-files-in-pager",
                "opens the files it finds in a pager or editor",
            ),
            (
                "--textconv",
                "runs the text conversion programs the repository configures",
            ),
        ],
    },
    Entry {
        program: "cargo",
        style: Style::Getopt {
            values: "pjFZ",
            optional: "",
            long_values: &["--config"],
            abbreviations: false,
        },
        risky: &[
            (
                "--config",
                "sets configuration that can run programs (runners, wrappers)",
            ),
            ("--fix", "rewrites source files"),
        ],
    },
    Entry {
        program: "tree",
        style: Style::Getopt {
            values: "LPIoH",
            optional: "",
            long_values: &[],
            abbreviations: true,
        },
        risky: &[("-o", WRITES_FILE)],
    },
    Entry {
        program: "date",
        style: Style::Getopt {
            values: "dfrs",
            optional: "I",
            long_values: &["--date", "--file", "--reference", "--set"],
            abbreviations: true,
        },
        risky: &[
            ("-s", "sets the system clock"),
            ("--set", "sets the system clock"),
        ],
    },
    Entry {
        program: "test",
        style: Style::Words,
        risky: &[
            (
                "-v",
                "evaluates an array subscript as arithmetic, which can run commands",
            ),
            (
                "-R",
                "evaluates an array subscript as arithmetic, which can run commands",
            ),
        ],
    },
    Entry {
        program: "[",
        style: Style::Words,
        risky: &[
            (
                "-v",
                "evaluates an array subscript as arithmetic, which can run commands",
            ),
            (
                "-R",
                "evaluates an array subscript as arithmetic, which can run commands",
            ),
        ],
    },
    Entry {
        program: "less",
        style: Style::Always,
        risky: &[("less", "can run commands (`!`, `|`, an editor, `LESSOPEN`)")],
    },
    Entry {
        program: "more",
        style: Style::Always,
        risky: &[("more", "can run commands (`!`, an editor)")],
    },
    Entry {
        program: "most",
        style: Style::Always,
        risky: &[("most", "can run commands (an editor)")],
    },
    Entry {
        program: "pg",
        style: Style::Always,
        risky: &[("pg", "can run commands (`!`)")],
    },
];
