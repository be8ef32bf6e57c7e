//! What a failed C build lacks in its command line rather than in its
//! code: a header the compiler could not find although the workspace has
//! it (the include path, `-I`, does not name its directory), or a library
//! the linker was not given (`undefined reference to `sqrt'`: `-lm`).
//! Both are fixed in the file that holds the build's commands (a
//! Makefile, a build script), never in the sources: the source's
//! `#include "ops.h"` and call of `sqrt` are right. Found on dev: the
//! edit went to `src/main.c` (the line the compiler named) and every
//! candidate rewrote the same `#include`; a Makefile's link line never
//! got its `-lm` from the model.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::find::{workspace_files, MAX_FILES_SCANNED};
use super::paths::normalize;

/// A flag a C build's command line lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildFlag {
    /// `-I<dir>`: a directory (relative to the workspace) holding a header
    /// the compiler did not find.
    Include(String),
    /// `-l<name>`: a library whose functions the linker did not find.
    Library(&'static str),
}

impl BuildFlag {
    /// The flag as it is written on a compiler's command line.
    pub fn text(&self) -> String {
        match self {
            BuildFlag::Include(dir) => format!("-I{dir}"),
            BuildFlag::Library(name) => format!("-l{name}"),
        }
    }
}

/// The functions of the C math library (`libm`), without their `f` and
/// `l` variants (`sqrtf`, `powl`), which are read as these.
const LIBM: &[&str] = &[
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "cbrt",
    "ceil",
    "copysign",
    "cos",
    "cosh",
    "erf",
    "erfc",
    "exp",
    "exp2",
    "expm1",
    "fabs",
    "fdim",
    "floor",
    "fma",
    "fmax",
    "fmin",
    "fmod",
    "frexp",
    "hypot",
    "ilogb",
    "ldexp",
    "lgamma",
    "llrint",
    "llround",
    "log",
    "log10",
    "log1p",
    "log2",
    "logb",
    "lrint",
    "lround",
    "modf",
    "nan",
    "nearbyint",
    "nextafter",
    "pow",
    "remainder",
    "remquo",
    "rint",
    "round",
    "scalbn",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "tgamma",
    "trunc",
];

/// The functions of the dynamic loader's library (`libdl`).
const LIBDL: &[&str] = &["dlopen", "dlsym", "dlclose", "dlerror"];

/// gcc's `fatal error: ops.h: No such file or directory` and clang's
/// `fatal error: 'ops.h' file not found`: the header is group 1 or 2.
static MISSING_HEADER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"fatal error: (?:([A-Za-z0-9_./+-]+\.(?:h|hh|hpp|hxx|inc)): No such file or directory|'([A-Za-z0-9_./+-]+\.(?:h|hh|hpp|hxx|inc))' file not found)",
    )
    .ok()
});

/// The linker's `undefined reference to `sqrt'` (GNU ld) and
/// `undefined symbol: sqrt` (lld): the symbol is group 1 or 2.
static UNDEFINED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"undefined reference to [`']([A-Za-z_][A-Za-z0-9_]*)'|undefined symbol: ([A-Za-z_][A-Za-z0-9_]*)")
        .ok()
});

/// A word that runs a C compiler: `gcc`, `cc`, `clang`, `g++` (a path
/// or a version suffix allowed), or the make or shell variable `CC` /
/// `CXX` (`$(CC)`, `${CC}`, `"$CC"`, `${CC:-gcc}`).
static COMPILER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"^"?(?:(?:[A-Za-z0-9_./-]*/)?(?:gcc|cc|clang|g\+\+|c\+\+|clang\+\+)(?:-[0-9.]+)?|\$(?:\(|\{)?(?:CC|CXX)(?::-[A-Za-z0-9_./+-]*)?(?:\)|\})?)"?$"#,
    )
    .ok()
});

/// The most directories offered for one missing header.
const MAX_HEADER_DIRS: usize = 3;

/// The header a compiler error line says it could not find.
pub fn missing_header(text: &str) -> Option<String> {
    let captures = MISSING_HEADER.as_ref()?.captures(text)?;
    captures
        .get(1)
        .or_else(|| captures.get(2))
        .map(|m| m.as_str().to_string())
}

/// The library that defines `symbol`, when it is one a C program must
/// name to the linker (`-lm`, `-lpthread`, `-ldl`).
pub(crate) fn library_of(symbol: &str) -> Option<&'static str> {
    let base = symbol
        .strip_suffix('f')
        .or_else(|| symbol.strip_suffix('l'))
        .filter(|base| LIBM.contains(base));
    if LIBM.contains(&symbol) || base.is_some() {
        return Some("m");
    }
    if symbol.starts_with("pthread_") {
        return Some("pthread");
    }
    if LIBDL.contains(&symbol) {
        return Some("dl");
    }
    None
}

/// The workspace directories (relative, `""` for the root) that hold
/// `header` (`ops.h`, or `sub/ops.h` as the `#include` wrote it), sorted,
/// at most [`MAX_HEADER_DIRS`].
pub(crate) fn header_dirs(workspace: &Path, header: &str) -> Vec<String> {
    let header = header.trim_start_matches("./");
    if header.split('/').any(|part| part == "..") {
        return Vec::new();
    }
    let mut dirs: Vec<String> = workspace_files(workspace)
        .take(MAX_FILES_SCANNED)
        .filter_map(|entry| {
            let file = normalize(entry.path().strip_prefix(workspace).ok()?)?;
            if file == header {
                Some(String::new())
            } else {
                file.strip_suffix(header)
                    .and_then(|dir| dir.strip_suffix('/'))
                    .map(str::to_string)
            }
        })
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs.truncate(MAX_HEADER_DIRS);
    dirs
}

/// The flags `output` (a failed build's output in `workspace`) says the
/// build's command line lacks: each missing header's directories, then
/// each library of an undefined symbol, every flag once.
pub fn missing_flags(output: &str, workspace: &Path) -> Vec<BuildFlag> {
    let mut flags: Vec<BuildFlag> = Vec::new();
    let mut add = |flag: BuildFlag| {
        if !flags.contains(&flag) {
            flags.push(flag);
        }
    };
    let mut headers: Vec<String> = Vec::new();
    for line in output.lines() {
        if let Some(header) = missing_header(line) {
            if headers.contains(&header) {
                continue;
            }
            for dir in header_dirs(workspace, &header) {
                add(BuildFlag::Include(if dir.is_empty() {
                    ".".to_string()
                } else {
                    dir
                }));
            }
            headers.push(header);
            continue;
        }
        let Some(captures) = UNDEFINED.as_ref().and_then(|re| re.captures(line)) else {
            continue;
        };
        if let Some(library) = captures
            .get(1)
            .or_else(|| captures.get(2))
            .and_then(|m| library_of(m.as_str()))
        {
            add(BuildFlag::Library(library));
        }
    }
    flags
}

/// The line (1-based) of the first rule of the Makefile `text` whose
/// targets and prerequisites (words, `$(...)` left as written) `wanted`
/// accepts; recipe lines, comments, assignments and pattern rules are not
/// rules here.
fn rule_line(text: &str, wanted: impl Fn(&[&str], &[&str]) -> bool) -> Option<u32> {
    for (index, line) in text.lines().enumerate() {
        if line.starts_with('\t') || line.trim_start().starts_with('#') {
            continue;
        }
        let Some((targets, rest)) = line.split_once(':') else {
            continue;
        };
        // `x := y`, `x ::= y`: assignments; `a = b:c`: an assignment too.
        if rest.starts_with('=') || rest.starts_with(":=") || targets.contains('=') {
            continue;
        }
        let prerequisites = rest.split([';', '#']).next().unwrap_or_default();
        let targets: Vec<&str> = targets.split_whitespace().collect();
        let prerequisites: Vec<&str> = prerequisites.split_whitespace().collect();
        if targets.iter().any(|t| t.contains('%')) {
            continue;
        }
        if wanted(&targets, &prerequisites) {
            return u32::try_from(index + 1).ok();
        }
    }
    None
}

/// For a header the Makefile `text` makes (a rule with `header` among its
/// targets), the line (1-based) of the rule that makes the object of
/// `source` without listing `header` among its prerequisites, and the
/// line of the header's own rule: make compiles `source` before it makes
/// the header. `None` when no rule makes the header, or every object rule
/// of `source` lists it.
pub fn header_rule_gap(text: &str, header: &str, source: &str) -> Option<(u32, u32)> {
    let made = rule_line(text, |targets, _| targets.contains(&header))?;
    let source = source.trim_start_matches("./");
    let object = rule_line(text, |targets, prerequisites| {
        !targets.contains(&header)
            && targets.iter().any(|t| t.ends_with(".o"))
            && prerequisites.contains(&source)
            && !prerequisites.contains(&header)
    })?;
    Some((object, made))
}

/// Whether `file` (a path relative to the workspace) is a Makefile.
pub fn is_makefile(file: &str) -> bool {
    let name = file.rsplit('/').next().unwrap_or(file);
    matches!(name, "Makefile" | "makefile" | "GNUmakefile") || name.ends_with(".mk")
}

/// Where a compiler runs on `line` of a build file: the byte offset just
/// after the compiler's word, and whether the line only compiles (`-c`:
/// no link). Comments and lines of a Makefile that are not recipes
/// (`CC = gcc`) run nothing.
pub fn compiler_at(line: &str, makefile: bool) -> Option<(usize, bool)> {
    let trimmed = line.trim_start();
    if trimmed.starts_with('#') || (makefile && !line.starts_with('\t')) {
        return None;
    }
    let compiler = COMPILER.as_ref()?;
    let mut offset = 0;
    let mut after: Option<usize> = None;
    // Only a word where a command starts runs a program (`echo "with
    // gcc"` runs echo).
    let mut command_starts = true;
    for word in line.split_inclusive(char::is_whitespace) {
        // `@` and `-` before a recipe's command: make's own prefixes.
        let bare = word.trim_end().trim_start_matches(['@', '-']);
        if bare.is_empty() {
            offset += word.len();
            continue;
        }
        if command_starts && compiler.is_match(bare) {
            after = Some(offset + word.trim_end().len());
            break;
        }
        let assignment = bare.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        command_starts = assignment
            || matches!(
                bare,
                "&&" | "||" | ";" | "|" | "then" | "do" | "else" | "exec" | "time" | "(" | "env"
            )
            || bare.ends_with(';');
        offset += word.len();
    }
    let end = after?;
    let compile_only = line[end..].split_whitespace().any(|word| word == "-c");
    Some((end, compile_only))
}

/// The first line (from 1) of `text` where a compiler runs.
pub(crate) fn first_compiler_line(text: &str, makefile: bool) -> Option<u32> {
    let index = text
        .lines()
        .position(|line| compiler_at(line, makefile).is_some())?;
    u32::try_from(index + 1).ok()
}

/// The workspace file holding the build commands `command` runs, when it
/// names one: the Makefile `make` reads (`-C dir`, `-f file` followed),
/// or the script of `./build.sh`, `bash build.sh`, `sh build.sh`.
pub fn build_file(command: &str, workspace: &Path) -> Option<String> {
    for segment in command.split(['&', ';', '|', '\n']) {
        let words: Vec<&str> = segment.split_whitespace().collect();
        let Some(first) = words.first() else {
            continue;
        };
        let found = match *first {
            "make" | "gmake" => makefile(&words[1..], workspace),
            "bash" | "sh" => words
                .get(1)
                .filter(|word| !word.starts_with('-'))
                .and_then(|script| workspace_file(workspace, script)),
            program if program.starts_with("./") => workspace_file(workspace, program),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The Makefile `make` with `arguments` reads in `workspace`.
fn makefile(arguments: &[&str], workspace: &Path) -> Option<String> {
    let mut dir = String::new();
    let mut file: Option<&str> = None;
    let mut words = arguments.iter();
    while let Some(word) = words.next() {
        match *word {
            "-C" => dir = words.next()?.trim_end_matches('/').to_string(),
            "-f" => file = Some(words.next()?),
            _ => {}
        }
    }
    let join = |name: &str| {
        if dir.is_empty() {
            name.to_string()
        } else {
            format!("{dir}/{name}")
        }
    };
    match file {
        Some(file) => workspace_file(workspace, &join(file)),
        None => ["GNUmakefile", "makefile", "Makefile"]
            .iter()
            .find_map(|name| workspace_file(workspace, &join(name))),
    }
}

/// `path` relative to `workspace` (without `./`), when it is a file there
/// and names nothing outside it.
fn workspace_file(workspace: &Path, path: &str) -> Option<String> {
    let path = path.trim_matches(['"', '\'']).trim_start_matches("./");
    if path.is_empty() || path.starts_with('/') || path.split('/').any(|part| part == "..") {
        return None;
    }
    workspace.join(path).is_file().then(|| path.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libraries_are_known_by_their_functions() {
        assert_eq!(library_of("sqrt"), Some("m"));
        assert_eq!(library_of("powf"), Some("m"));
        assert_eq!(library_of("fabsl"), Some("m"));
        assert_eq!(library_of("pthread_create"), Some("pthread"));
        assert_eq!(library_of("dlopen"), Some("dl"));
        assert_eq!(library_of("wordcount"), None, "a function of the project");
        assert_eq!(library_of("f"), None);
    }

    #[test]
    fn a_missing_header_found_elsewhere_and_a_missing_library_are_flags() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::create_dir_all(ws.join("include/net")).unwrap();
        std::fs::write(ws.join("include/ops.h"), "").unwrap();
        std::fs::write(ws.join("include/net/sock.h"), "").unwrap();
        let output = "src/main.c:4:10: fatal error: ops.h: No such file or directory\n\
                      src/x.c:1:10: fatal error: 'net/sock.h' file not found\n\
                      /usr/bin/ld: spread.o: in function `main':\n\
                      spread.c:(.text+0xdc): undefined reference to `sqrt'\n\
                      spread.c:(.text+0xf7): undefined reference to `sqrt'\n\
                      main.c:(.text+0x1e): undefined reference to `wordcount'\n\
                      ld.lld: error: undefined symbol: pthread_join\n";
        assert_eq!(
            missing_flags(output, ws),
            vec![
                BuildFlag::Include("include".to_string()),
                BuildFlag::Library("m"),
                BuildFlag::Library("pthread"),
            ],
            "net/sock.h is found as include/ + net/sock.h"
        );
        assert_eq!(header_dirs(ws, "net/sock.h"), vec!["include"]);
        assert!(header_dirs(ws, "missing.h").is_empty());
        assert!(header_dirs(ws, "../include/ops.h").is_empty());
        assert_eq!(BuildFlag::Include("include".into()).text(), "-Iinclude");
        assert_eq!(BuildFlag::Library("m").text(), "-lm");
    }

    #[test]
    fn compilers_are_found_on_recipe_and_script_lines() {
        assert_eq!(
            compiler_at("\t$(CC) $(CFLAGS) -c spread.c", true),
            Some((6, true))
        );
        assert_eq!(compiler_at("\t@$(CC) -o $@ $^", true), Some((7, false)));
        assert_eq!(
            compiler_at("CC = gcc", true),
            None,
            "an assignment runs nothing"
        );
        assert_eq!(
            compiler_at("gcc -O2 -o app main.c", false),
            Some((3, false))
        );
        assert_eq!(
            compiler_at("  \"${CC:-cc}\" -o app a.c", false),
            Some((13, false))
        );
        assert_eq!(compiler_at("# gcc -o app", false), None);
        assert_eq!(compiler_at("echo built", false), None);
        assert_eq!(compiler_at("echo \"with gcc\"", false), None, "echo runs");
        assert_eq!(
            compiler_at("mkdir -p b && CFLAGS=-O2 gcc -o b/a a.c", false),
            Some((28, false))
        );
        assert_eq!(
            compiler_at("/usr/bin/gcc-12 -c x.c", false),
            Some((15, true))
        );
        assert_eq!(
            first_compiler_line("set -e\nmkdir -p build\ngcc -o b a.c\n", false),
            Some(3)
        );
    }

    #[test]
    fn the_build_file_is_the_makefile_or_the_script_the_command_runs() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::create_dir_all(ws.join("sub")).unwrap();
        std::fs::write(ws.join("Makefile"), "all:\n").unwrap();
        std::fs::write(ws.join("sub/makefile"), "all:\n").unwrap();
        std::fs::write(ws.join("build.sh"), "gcc -o a a.c\n").unwrap();
        assert_eq!(build_file("make", ws).as_deref(), Some("Makefile"));
        assert_eq!(
            build_file("make -C sub test", ws).as_deref(),
            Some("sub/makefile")
        );
        assert_eq!(build_file("./build.sh", ws).as_deref(), Some("build.sh"));
        assert_eq!(
            build_file("bash build.sh && ./app", ws).as_deref(),
            Some("build.sh")
        );
        assert_eq!(
            build_file("cd x; sh build.sh", ws).as_deref(),
            Some("build.sh")
        );
        assert_eq!(build_file("python3 -m unittest", ws), None);
        assert_eq!(build_file("bash ../build.sh", ws), None);
        assert_eq!(build_file("make -f nothere", ws), None);
    }
}
