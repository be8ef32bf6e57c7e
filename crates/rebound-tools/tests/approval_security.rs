//! The approval policy against the attacks of issue 12: each test is one
//! attack (or one family of them) that the hand-written splitter let
//! through, asserting the exact verdict and that its reason names the
//! problem. Also: git read commands run hardened against the repository's
//! configuration (with real repositories), and everyday commands stay
//! allowed.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use rebound_tools::approval::{
    hardened_command, ApprovalMode, ApprovalPolicy, CommandRule, RuleAction, Verdict,
};

const MODES: [ApprovalMode; 3] = [
    ApprovalMode::Auto,
    ApprovalMode::OnRisk,
    ApprovalMode::Always,
];

fn on_risk() -> ApprovalPolicy {
    ApprovalPolicy::new(ApprovalMode::OnRisk)
}

/// `line` is forbidden in every mode, for a reason that mentions each of
/// `needles`.
fn assert_forbidden(policy: &ApprovalPolicy, line: &str, needles: &[&str]) {
    for mode in MODES {
        let verdict = policy.clone().with_mode(mode).assess(line);
        let Verdict::Forbid { reason } = &verdict else {
            panic!("{line:?} under {mode}: expected forbid, got {verdict:?}");
        };
        for needle in needles {
            assert!(
                reason.contains(needle),
                "{line:?}: the reason {reason:?} does not mention {needle:?}"
            );
        }
    }
}

/// `line` is asked about under `on-risk` (and so never silently allowed),
/// for a reason that mentions each of `needles`.
fn assert_asks(policy: &ApprovalPolicy, line: &str, needles: &[&str]) {
    let verdict = policy.clone().with_mode(ApprovalMode::OnRisk).assess(line);
    let Verdict::Ask { reason } = &verdict else {
        panic!("{line:?}: expected ask, got {verdict:?}");
    };
    for needle in needles {
        assert!(
            reason.contains(needle),
            "{line:?}: the reason {reason:?} does not mention {needle:?}"
        );
    }
}

fn assert_allowed(policy: &ApprovalPolicy, line: &str) {
    assert_eq!(policy.assess(line), Verdict::Allow, "{line:?}");
}

// ---------------------------------------------------------------------------
// 1. A real parser, failing closed.

#[test]
fn a_command_substitution_in_a_heredoc_body_is_judged_and_forbidden() {
    assert_forbidden(
        &on_risk(),
        "cat <<EOF\n$(rm -rf /)\nEOF",
        &["`rm` would recursively delete `/`"],
    );
    assert_forbidden(
        &on_risk(),
        "cat <<EOF\nfine\n`rm -rf /`\nEOF",
        &["delete `/`"],
    );
}

#[test]
fn an_expanding_heredoc_is_risky_and_a_quoted_one_is_literal() {
    assert_asks(&on_risk(), "cat <<EOF\n$HOME\nEOF", &["here-document"]);
    assert_asks(&on_risk(), "cat <<EOF\n$(whoami)\nEOF", &["here-document"]);
    assert_allowed(&on_risk(), "cat <<'EOF'\n$(rm -rf /) $HOME\nEOF");
}

#[test]
fn a_shell_reading_a_heredoc_or_a_pipe_is_searched_for_forbidden_commands() {
    assert_forbidden(&on_risk(), "cat <<EOF | sh\nrm -rf /\nEOF", &["delete `/`"]);
    assert_forbidden(&on_risk(), "echo 'rm -rf /' | bash", &["delete `/`"]);
    // Escaped in the heredoc, it is still a substitution for the inner shell.
    assert_forbidden(
        &on_risk(),
        "bash <<EOF\n\\$(rm -rf /)\nEOF",
        &["delete `/`"],
    );
    assert_asks(
        &on_risk(),
        "echo ls | sh",
        &["runs commands from its input"],
    );
}

#[test]
fn obfuscated_command_names_are_read_as_bash_reads_them() {
    assert_forbidden(&on_risk(), "$'\\x72m' -rf /", &["delete `/`"]);
    assert_forbidden(&on_risk(), "echo `echo \\`rm -rf /\\``", &["delete `/`"]);
    assert_forbidden(&on_risk(), "rm > /dev/null -rf /", &["delete `/`"]);
}

#[test]
fn expansions_in_the_command_position_are_risky() {
    assert_asks(&on_risk(), "${CMD} -la", &["only known when it runs"]);
    assert_asks(&on_risk(), "\"$X\" file", &["only known when it runs"]);
}

#[test]
fn arithmetic_is_risky() {
    for line in [
        "echo $((1 + 2))",
        "(( n++ ))",
        "for ((i = 0; i < 3; i++)); do ls; done",
        "x='a[$(id)]'; [[ $x -eq 1 ]] && ls",
        "a[$i]=1",
    ] {
        assert_asks(&on_risk(), line, &["arithmetic"]);
    }
    assert_asks(
        &on_risk(),
        "test -v 'a[$(id)]'",
        &["`test -v`", "arithmetic"],
    );
}

#[test]
fn expansions_other_than_the_plain_forms_are_risky() {
    for line in [
        "echo ${x@P}",
        "echo ${!name}",
        "cat ${f:1}",
        "echo ${x/a/b}",
    ] {
        assert_asks(&on_risk(), line, &["expansion", "not understood"]);
    }
    assert_allowed(&on_risk(), "echo ${HOME} ${#x} ${x:-default} \"$@\"");
}

#[test]
fn function_definitions_and_eval_are_risky() {
    assert_asks(&on_risk(), "f() { ls; }", &["function definition"]);
    assert_forbidden(&on_risk(), "f() { rm -rf /; }", &["delete `/`"]);
    assert_asks(&on_risk(), "eval ls", &["`eval`"]);
    assert_forbidden(&on_risk(), "eval 'rm -rf /'", &["delete `/`"]);
}

#[test]
fn what_does_not_parse_is_risky_and_still_searched() {
    assert_asks(&on_risk(), "if true; then ls", &["does not parse"]);
    assert_asks(&on_risk(), "ls <> d", &["does not parse"]);
    assert_forbidden(&on_risk(), "if true; then rm -rf /", &["delete `/`"]);
}

#[test]
fn substitutions_are_risky_wherever_they_are() {
    for line in [
        "cat $(ls)",
        "echo \"$(whoami)\"",
        "X=$(whoami) ls",
        "echo ${x:-$(whoami)}",
        "for f in $(ls); do cat $f; done",
    ] {
        assert_asks(&on_risk(), line, &["substitution"]);
    }
    assert_asks(
        &on_risk(),
        "diff <(ls a) <(ls b)",
        &["process substitution"],
    );
}

// ---------------------------------------------------------------------------
// 2. Options that write files or run programs.

#[test]
fn sort_options_that_write_are_risky_even_clustered_or_abbreviated() {
    for (line, option) in [
        ("sort -o out.txt in.txt", "-o"),
        ("sort -no M in.txt", "-o"),
        ("sort -oM in.txt", "-o"),
        ("sort --output=M in.txt", "--output"),
        ("sort --out M in.txt", "--output"),
        ("sort --compress-program=sh in.txt", "--compress-program"),
    ] {
        assert_asks(&on_risk(), line, &[&format!("`sort {option}`")]);
    }
    assert_allowed(&on_risk(), "sort -t o -k 2 -n in.txt");
}

#[test]
fn find_options_that_write_or_delete_are_risky() {
    for option in ["-delete", "-fprint", "-fprint0", "-fprintf", "-fls"] {
        let line = format!("find . -name '*.o' {option} out");
        assert_asks(&on_risk(), &line, &[&format!("`find {option}`")]);
    }
    // `-exec` and its kin are judged on the command they run.
    assert_allowed(&on_risk(), "find . -name '*.rs' -exec cat {} \\;");
    assert_asks(&on_risk(), "find . -execdir sh -c id \\;", &["`id`"]);
    assert_forbidden(&on_risk(), "find . -ok rm -rf / \\;", &["delete `/`"]);
}

#[test]
fn rg_options_that_run_programs_are_risky() {
    for (line, option) in [
        ("rg --pre ./evil foo", "--pre"),
        ("rg --pre=./evil foo", "--pre"),
        ("rg -iz foo", "-z"),
        ("rg --search-zip foo", "--search-zip"),
        ("rg --hostname-bin=./evil foo", "--hostname-bin"),
    ] {
        assert_asks(&on_risk(), line, &[&format!("`rg {option}`")]);
    }
    assert_allowed(&on_risk(), "rg -e -z foo src");
}

#[test]
fn tar_options_that_run_programs_are_risky_even_when_tar_is_allowed() {
    let policy = on_risk().with_rules([CommandRule::allow("tar")]);
    assert_allowed(&policy, "tar -xf a.tar");
    for (line, option) in [
        ("tar --to-command='sh -c id' -xf a.tar", "--to-command"),
        (
            "tar --use-compress-program=./evil -xf a.tar",
            "--use-compress-program",
        ),
        ("tar -I ./evil -xf a.tar", "-I"),
        ("tar xIf ./evil a.tar", "-I"),
        (
            "tar --checkpoint=1 --checkpoint-action=exec=id -cf a.tar .",
            "--checkpoint-action",
        ),
    ] {
        assert_asks(&policy, line, &[&format!("`tar {option}`")]);
    }
}

#[test]
fn sed_in_place_and_scripts_that_run_or_write_are_risky_even_when_sed_is_allowed() {
    let policy = on_risk().with_rules([CommandRule::allow("sed")]);
    assert_allowed(&policy, "sed -n '1,20p' x.py");
    assert_allowed(&policy, "sed 's/a/b/g; /x/d' x.py");
    for (line, problem) in [
        ("sed -i 's/a/b/' x.py", "`sed -i`"),
        ("sed -ni.bak 's/a/b/p' x.py", "`sed -i`"),
        ("sed --in-place 's/a/b/' x.py", "`sed --in-place`"),
        ("sed -f script.sed x.py", "`sed -f`"),
        ("sed '1e id' x.py", "runs a command"),
        ("sed 's/a/b/e' x.py", "runs a command"),
        ("sed -n '/x/w out.txt' x.py", "writes to a file"),
        ("sed -e 's/a/b/w out.txt' x.py", "writes to a file"),
    ] {
        assert_asks(&policy, line, &[problem]);
    }
    // A config rule that names the option is the user's word.
    let in_place = on_risk().with_rules([CommandRule::allow("sed -i")]);
    assert_allowed(&in_place, "sed -i 's/a/b/' x.py");
}

#[test]
fn git_options_that_run_programs_make_the_allow_list_not_apply() {
    for (line, problem) in [
        ("git -c core.fsmonitor=./evil status", "`git -c`"),
        ("git --config-env=core.pager=EVIL log", "`git -c`"),
        ("git --exec-path=/tmp/evil status", "`git -c`"),
        ("git -p log", "pager"),
        ("git -C /elsewhere status", "another repository"),
        ("git -C ../other status", "another repository"),
        ("git diff --ext-diff", "`git diff --ext-diff`"),
        ("git log -p --textconv", "`git log --textconv`"),
        ("git show --output=/tmp/x HEAD", "`git show --output`"),
        ("git log --show-signature", "`git log --show-signature`"),
        (
            "git cat-file --textconv HEAD:a",
            "`git cat-file --textconv`",
        ),
        ("git cat-file --filters HEAD:a", "`git cat-file --filters`"),
    ] {
        assert_asks(&on_risk(), line, &[problem]);
    }
    assert_allowed(&on_risk(), "git -C sub status");
    assert_allowed(
        &on_risk().with_workspace("/work/repo"),
        "git -C /work/repo/sub status",
    );
}

#[test]
fn pagers_are_risky() {
    for pager in ["less", "more"] {
        assert_asks(
            &on_risk(),
            &format!("{pager} README.md"),
            &["can run commands"],
        );
    }
}

#[test]
fn xargs_is_judged_on_the_command_it_runs() {
    assert_asks(&on_risk(), "ls | xargs sort", &["`xargs`", "`sort`"]);
    assert_forbidden(&on_risk(), "echo / | xargs -tn 1 rm -rf /", &["delete `/`"]);
    assert_asks(&on_risk(), "ls | xargs -0 rm -f", &["`rm -f`"]);
    assert_allowed(&on_risk(), "ls | xargs -n 1 wc -l");
}

/// Found when the approval fuzz target's oracle learned the wrappers:
/// input that a wrapper passes on becomes code or options.
#[test]
fn input_given_to_a_program_that_runs_commands_is_asked_about() {
    for line in [
        // A line of the input put into shell code.
        "cat names.txt | xargs -I% sh -c 'ls %'",
        "cat names.txt | xargs -i bash -c 'wc -l {}'",
        "cat names.txt | xargs -I% watch 'ls %'",
        // watch joins its words (the input's among them) into a line.
        "cat names.txt | xargs watch ls",
        // Options from the input for a command behind a wrapper.
        "cat names.txt | xargs nice sort",
        "cat names.txt | xargs -I% timeout 5 rg %",
    ] {
        assert_asks(&on_risk(), line, &["`xargs` gives its input to"]);
    }
    // A file's name (the workspace's to choose) put into shell code.
    assert_asks(
        &on_risk(),
        "find . -name '*.txt' -exec sh -c 'cat {}' ';'",
        &["`find -exec` puts file names into what `sh` runs"],
    );
    // env -S splits by its own rules: `#` starts a comment, and the rest
    // of the line is the command.
    assert_asks(&on_risk(), "env -S '#ls' rm -f x", &["`env -S`"]);
    // Options env is not known to have are asked about (BSD env's `-P`
    // sets where the command is looked up), and so is a bare `-`, after
    // which the next word is the command even when it starts with `-`
    // (found by the approval fuzz target: an unknown option made the
    // policy read the wrong word as env's command).
    for line in [
        "env -P /tmp/bin ls",
        "env - ls",
        "env --path=/tmp ls",
        "env -~dif'f-<( sed -crintf /|  '#-e env - -crintf /stat  '#lpot[s s<(\\  '#sed -e env -?~fnv ] x",
    ] {
        assert_asks(&on_risk(), line, &["env"]);
    }
    assert_allowed(&on_risk(), "env -i LANG=C ls");
    // A git subcommand without a table of its own still has git's
    // writing and program-running options asked about (found by the
    // approval fuzz target: `git tag -l --output=...`).
    assert_asks(
        &on_risk(),
        "git tag -l -n1 '--output=v1.txt'",
        &["--output"],
    );
    assert_asks(&on_risk(), "git rev-list --textconv HEAD", &["--textconv"]);
    assert_allowed(&on_risk(), "git tag -l -n1 'v1*'");
    // A `+` that is not right after `{}` ends nothing: `-o out` is sort's.
    assert_asks(&on_risk(), "find . -exec sort + -o out {} ';'", &[]);
    // What a wrapper runs goes to `exec`, not to a shell: `A=b` is a
    // program's name there, not an assignment.
    for line in [
        "find . -exec s=d ';'",
        "timeout 5 A=b ls",
        "ls | xargs A=b wc -l",
        "nice X=1 ls",
    ] {
        assert_asks(&on_risk(), line, &["as a program's name"]);
    }
    // A line a shell runs that a variable completes: its value is code.
    for line in [
        "bash -c 'ls | wc '$X",
        "bash -c \"ls $X\"",
        "sh -c 'ls'\"$(echo x)\"",
    ] {
        assert_asks(&on_risk(), line, &[]);
    }
    for line in [
        "find . -eh fepip\t>xedescriog -nd . -exec sort + -/ o}tu{  ';'/ o}tu{  ';'",
        "find . >out -exec sort + -o x ';'",
        "find . >out",
        "find . -exec cat {} + > ~/.bashrc",
        "watch ls > out.txt",
    ] {
        assert_asks(&on_risk(), line, &[]);
    }
    // `--` as the value of `-e` ends no options: `--pre` runs a program.
    assert_asks(&on_risk(), "rg -e -- --pre ./evil x", &[]);
    assert_allowed(&on_risk(), "rg - -- --pre");
    // A wrapper's option the shell expands splits into words: they could
    // be the command (`N='5 rm -rf x'`).
    for line in [
        "timeout 5 nice -$HOME/n 5 ls",
        "nice -$N ls",
        "timeout $T ls",
        "ls | xargs -n $N wc -l",
    ] {
        assert_asks(&on_risk(), line, &["only known when it runs"]);
    }
    // An option the shell expands hides which word is a value: `-hog` is
    // `-h -o g` (sort writes g) once `-q$x` is only `-q`.
    assert_asks(
        &on_risk(),
        "sort rd . -exec 2oro ou.test -q$xgit -hog",
        &["only known when it runs"],
    );
    assert_allowed(&on_risk(), "sort -t, -k2 data.csv");
    // A word after a redirection's target is the command's argument.
    assert_asks(&on_risk(), "git <&x push", &[]);
    assert_asks(&on_risk(), "ls >&2 x; git <x push", &[]);
    // A name as an argument of a plain program stays allowed.
    assert_allowed(&on_risk(), "find . -name '*.txt' -exec wc -l {} ';'");
    assert_allowed(&on_risk(), "ls | xargs wc -l");
}

#[test]
fn awk_programs_that_run_commands_or_write_files_are_risky_even_when_awk_is_allowed() {
    let policy = on_risk().with_rules([CommandRule::allow("awk")]);
    assert_allowed(&policy, "awk '{print $1}' data.txt");
    for (line, problem) in [
        ("awk 'BEGIN{system(\"id\")}'", "`system()`"),
        ("awk '{print | \"sh\"}' x", "`|`"),
        ("awk '{print > \"out\"}' x", "`>`"),
        ("awk 'BEGIN{print ENVIRON[\"TOKEN\"]}'", "environment"),
        ("awk -f prog.awk x", "`awk -f`"),
    ] {
        assert_asks(&policy, line, &[problem]);
    }
}

#[test]
fn cargo_config_and_fix_are_risky() {
    assert_asks(
        &on_risk(),
        "cargo test --config 'target.x86_64-unknown-linux-gnu.runner=\"sh\"'",
        &["`cargo --config`"],
    );
    assert_asks(&on_risk(), "cargo clippy --fix", &["`cargo --fix`"]);
}

// ---------------------------------------------------------------------------
// 3. Git read commands cannot be made to run the repository's programs.

#[test]
fn hardened_command_rewrites_the_git_read_commands_of_a_line() {
    let hardening = "-c core.fsmonitor=false -c core.hooksPath=/dev/null -c core.pager=cat \
                     -c uploadpack.packObjectsHook= -c log.showSignature=false --no-pager";
    assert_eq!(
        hardened_command("cargo test && git status").as_deref(),
        Some(format!("cargo test && git {hardening} status").as_str())
    );
    assert_eq!(
        hardened_command("git diff HEAD~1 -- src | head").as_deref(),
        Some(
            format!("git {hardening} diff --no-ext-diff --no-textconv HEAD~1 -- src | head")
                .as_str()
        )
    );
    assert_eq!(hardened_command("git push origin main"), None);
    assert_eq!(hardened_command("ls -la"), None);
    assert_eq!(hardened_command("echo \"unclosed git status"), None);
}

#[test]
fn the_hardened_line_is_judged_like_the_original() {
    let policy = on_risk();
    for line in [
        "git status",
        "cargo test && git status --short",
        "git log --oneline -5",
        "git diff HEAD~1 -- src",
        "git show HEAD",
        "git blame src/lib.rs",
        "git -C sub log -1",
        "(cd sub && git status)",
    ] {
        let hardened = hardened_command(line).unwrap();
        assert_eq!(policy.assess(line), Verdict::Allow, "{line}");
        assert_eq!(policy.assess(&hardened), Verdict::Allow, "{hardened}");
    }
}

#[test]
fn a_git_read_command_that_cannot_be_hardened_is_asked_about() {
    assert_asks(&on_risk(), "bash -c 'git status'", &["cannot be hardened"]);
    assert_asks(&on_risk(), "timeout 10 git log", &["cannot be hardened"]);
    let hardened = hardened_command("git status").unwrap();
    let nested = format!("bash -c '{hardened}'");
    assert_allowed(&on_risk(), &nested);
}

/// A repository whose configuration runs `marker.sh` (which writes a file
/// named `marker`) as its file-system monitor, external diff program and
/// `post-index-change` hook.
fn hostile_repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(status.status.success(), "git {args:?}: {status:?}");
    };
    let marker = dir.path().join("marker");
    let script = dir.path().join("marker.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho \"$0 $*\" >> '{}'\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    git(&["init", "-q", "."]);
    git(&["-c", "user.email=a@b", "-c", "user.name=a", "add", "a.txt"]);
    git(&[
        "-c",
        "user.email=a@b",
        "-c",
        "user.name=a",
        "commit",
        "-qm",
        "init",
    ]);
    let script = script.to_str().unwrap();
    git(&["config", "core.fsmonitor", script]);
    git(&["config", "diff.external", script]);
    let hooks = dir.path().join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    std::fs::copy(
        dir.path().join("marker.sh"),
        hooks.join("post-index-change"),
    )
    .unwrap();
    std::fs::write(dir.path().join("a.txt"), "two\n").unwrap();
    dir
}

/// Runs `line` with `bash -c` in `dir`; whether `marker` was written.
fn runs_a_repository_program(dir: &Path, line: &str) -> bool {
    let marker = dir.join("marker");
    let _ = std::fs::remove_file(&marker);
    let output = Command::new("bash")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success() || marker.exists(),
        "{line}: {output:?}"
    );
    marker.exists()
}

#[test]
fn hardened_git_status_does_not_run_the_repositorys_fsmonitor_or_hooks() {
    let repo = hostile_repository();
    assert!(
        runs_a_repository_program(repo.path(), "git status"),
        "the unhardened `git status` runs the repository's program"
    );
    let hardened = hardened_command("git status").unwrap();
    assert!(
        !runs_a_repository_program(repo.path(), &hardened),
        "`{hardened}` ran the repository's program"
    );
}

#[test]
fn hardened_git_diff_does_not_run_the_repositorys_external_diff() {
    let repo = hostile_repository();
    assert!(runs_a_repository_program(
        repo.path(),
        "git -c core.fsmonitor=false diff"
    ));
    let hardened = hardened_command("git diff && git log -p -1 && git show").unwrap();
    assert!(
        !runs_a_repository_program(repo.path(), &hardened),
        "`{hardened}` ran the repository's program"
    );
}

// ---------------------------------------------------------------------------
// 4. `rm -r` of the home directory or of anything outside the workspace.

#[test]
fn rm_of_the_home_directory_is_forbidden_however_it_is_spelled() {
    for line in [
        "rm -rf ~",
        "rm -rf ~/",
        "rm -rf ${HOME:?}",
        "rm -r -f \"$HOME\"",
        "rm -rf \"${HOME}\"/",
        "rm -rf ~/..",
    ] {
        assert_forbidden(&on_risk(), line, &["`rm`", "delete"]);
    }
}

#[test]
fn rm_of_something_only_known_when_it_runs_is_forbidden() {
    assert_forbidden(&on_risk(), "rm -rf $(echo ~)", &["`$(echo ~)`"]);
    assert_forbidden(&on_risk(), "h=~; rm -rf $h", &["`$h`"]);
    assert_forbidden(&on_risk(), "rm -rf \"$dir\"", &["`$dir`"]);
    assert_forbidden(&on_risk(), "rm -rf \"$STEAMROOT/\"*", &["`$STEAMROOT`"]);
    assert_forbidden(
        &on_risk(),
        "rm -rf \"$dir/build\"",
        &["would delete `/build` if `$dir` is empty"],
    );
    assert_forbidden(&on_risk(), "rm -rf ~alice", &["another user's home"]);
    // Guarded or relative, it is asked about.
    assert_asks(
        &on_risk(),
        "rm -rf \"${dir:?}/build\"",
        &["only known when it runs"],
    );
    assert_asks(&on_risk(), "rm -rf build/$x", &["only known when it runs"]);
    assert_asks(&on_risk(), "rm -rf ../other", &["climbs out"]);
}

#[test]
fn rm_of_an_absolute_path_outside_the_workspace_is_forbidden() {
    assert_forbidden(
        &on_risk(),
        "rm -rf /home/alice",
        &["`/home/alice`", "outside the workspace"],
    );
    assert_forbidden(
        &on_risk(),
        "rm -rf /tmp/scratch",
        &["outside the workspace"],
    );
    let policy = on_risk().with_workspace("/work/repo");
    assert_forbidden(
        &policy,
        "rm -rf /work/other",
        &["outside the workspace `/work/repo`"],
    );
    assert_forbidden(
        &policy,
        "rm -rf /work/repo/../other",
        &["outside the workspace"],
    );
    assert_forbidden(
        &policy,
        "sudo rm -r /work/other",
        &["outside the workspace"],
    );
    // Inside the workspace it is an ordinary `rm`: asked about, not forbidden.
    assert_asks(
        &policy,
        "rm -rf /work/repo/target",
        &["`rm -rf /work/repo/target`"],
    );
    assert_eq!(
        policy
            .clone()
            .with_mode(ApprovalMode::Auto)
            .assess("rm -rf /work/repo/target"),
        Verdict::Allow
    );
    assert_asks(&on_risk(), "rm -rf target", &["not on the allow list"]);
}

// ---------------------------------------------------------------------------
// 5. Another process's environment, command line or memory.

#[test]
fn reading_a_process_environment_command_line_or_memory_is_forbidden() {
    for line in [
        "cat /proc/1/environ",
        "cat /proc/self/environ",
        "strings /proc/$PPID/environ",
        "xxd /proc/*/mem",
        "tr '\\0' ' ' < /proc/self/cmdline",
        "cat /proc/self/task/*/environ",
        "head -c 100 /pro?/self/env*",
        "grep -a TOKEN /proc/[0-9]*/environ",
        "cd /proc/1 && cat environ",
        "bash -c 'cat /proc/self/environ'",
        "sed -n p /proc/thread-self/environ",
    ] {
        assert_forbidden(
            &on_risk(),
            line,
            &["/proc", "environment, command line or memory"],
        );
    }
    assert_allowed(&on_risk(), "cat /proc/cpuinfo");
}

// ---------------------------------------------------------------------------
// Everyday commands stay as they were.

#[test]
fn everyday_commands_stay_allowed() {
    let policy = on_risk();
    for line in [
        "cargo test",
        "cargo test && git status",
        "ls -la",
        "ls -la | grep foo",
        "git status",
        "python3 -m unittest -q",
        "grep -rn foo src | head -20",
        "RUST_LOG=debug cargo test 2>&1 | tail -20",
        "for f in src/*.rs; do wc -l \"$f\"; done",
        "if [ -f Cargo.toml ]; then cat Cargo.toml; fi",
        "find . -name '*.rs' | xargs wc -l",
        "echo \"$HOME\" # where am I",
    ] {
        assert_allowed(&policy, line);
    }
    // A plain redirection into the workspace was asked about, and still is.
    assert_asks(&policy, "cat a.txt > b.txt", &["writes to `b.txt`"]);
    assert_eq!(policy.assess("cat a.txt > b.txt").action(), RuleAction::Ask);
}

/// The shell tool runs git read commands hardened: `git status` through
/// `run_command` in the hostile repository runs none of its programs, and
/// the result shows the command as written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shell_runs_git_read_commands_hardened() {
    let repo = hostile_repository();
    let ctx = rebound_tools::ToolContext::new(repo.path()).unwrap();
    let config = rebound_tools::shell::ShellConfig {
        sandbox: rebound_tools::sandbox::SandboxPolicy::off(),
        ..Default::default()
    };
    let result = rebound_tools::shell::run_command("git status && git diff", None, &config, &ctx)
        .await
        .unwrap();
    assert_eq!(result.exit_code, Some(0), "{}", result.output);
    assert_eq!(result.command, "git status && git diff");
    assert!(
        !repo.path().join("marker").exists(),
        "the repository's program ran: {}",
        std::fs::read_to_string(repo.path().join("marker")).unwrap_or_default()
    );
}

/// Found by the approval fuzz target: a line with a NUL byte, whose policy
/// reading and whose run would differ (a shell stops at the NUL; a process
/// cannot be started with it), is never run.
#[test]
fn a_command_with_a_nul_byte_is_forbidden() {
    let policy = on_risk();
    assert_forbidden(&policy, "find . -exec find .\0 >out", &["NUL byte"]);
    assert_forbidden(&policy, "ls\0; rm -rf ~", &["NUL byte"]);
    assert_allowed(&policy, "find . -exec grep -l x {} ;");
}

/// Found by the approval fuzz target: a shell's options end at its first
/// word that is not one; a `-c` after the script's name is the script's
/// argument, and the script (a workspace file) cannot be judged.
#[test]
fn a_c_flag_after_a_shell_script_s_name_does_not_make_it_a_command_string() {
    let policy = on_risk();
    for line in [
        "bash bash -c ls",
        "sh ./evil.sh -c ls",
        "bash -e evil.sh -c 'ls'",
    ] {
        assert_asks(&policy, line, &["runs the script"]);
    }
    assert_allowed(&policy, "bash -c ls");
    assert_allowed(&policy, "bash -e -c 'ls -la'");
    assert_allowed(&policy, "bash -o pipefail -c 'ls | head'");
    assert_allowed(&policy, "sh -c -- 'ls'");
}

/// Found by the approval fuzz target: a shell's options were read as any
/// group of letters, so `-s` (read the input) or an `o` inside a group
/// (whose value is the next word) passed unseen. Only `set`'s flags, `-c`
/// and a trailing `o`/`O` with its value are known now; anything else
/// asks.
#[test]
fn a_shell_option_rebound_does_not_know_is_asked_about() {
    for line in [
        "bash -o0pipefash -o0pipefigtail -cigtail -c 'ls | wc -l'",
        "bash -s -c ls",
        "bash -lc ls",
        "bash -ic ls",
        "bash --login -c ls",
    ] {
        assert_asks(
            &on_risk(),
            line,
            &["an option that reads a file or its input"],
        );
    }
    // `-oc pipefail ls`: `o` takes `pipefail`, and `c` makes `ls` the line
    // (the older reading ran `pipefail`); asked about either way.
    assert_asks(&on_risk(), "bash -oc pipefail ls", &[]);
    assert_asks(&on_risk(), "sh --rcfile x -c ls", &[]);
    // The value of `-o` is no `-c` (bash refuses an option named `-c`).
    assert_asks(&on_risk(), "bash -o -c ls", &[]);
    for line in [
        "bash -c 'ls | wc -l'",
        "bash -e -o pipefail -c 'ls | wc -l'",
        "bash -euxo pipefail -c ls",
        "sh --norc -ec ls",
    ] {
        assert_allowed(&on_risk(), line);
    }
}

/// Found by the approval fuzz target: words that each are a command only
/// known when it runs (`g$ 1$ ...`) each started a scan of the words after
/// them for a forbidden command, and each scan started more: 140 bytes
/// took 52 s. A scan under way now covers the ones it would start; a
/// forbidden command among such words is still found.
#[test]
fn many_computed_words_are_judged_in_bounded_time() {
    let line = "rg$- 11 $ g$  -1$ 1$ grg$-1$ $1 g$  -1$$ 1$ g$ ".repeat(8);
    let started = std::time::Instant::now();
    assert_asks(&on_risk(), &line, &[]);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    let verdict = on_risk().assess(&format!("{line} nice rm -rf /"));
    assert!(matches!(verdict, Verdict::Forbid { .. }), "{verdict:?}");
}

/// Found by the approval fuzz target: `find -exec` judges its command once
/// more for each starting point put in the place of `{}`, and nested (`find
/// . -exec find . -exec ...`) that work grew exponentially: 527 bytes took
/// over 20 s. A line gets a fixed number of command judgements; one that
/// needs more is refused.
#[test]
fn nested_find_exec_is_judged_in_bounded_time() {
    let line = include_str!("../../../fuzz/corpus/approval/find-exec-nested-exponential");
    let started = std::time::Instant::now();
    assert_forbidden(&on_risk(), line, &["too much work to judge"]);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    // Everyday `find -exec` lines are far from the budget.
    assert_allowed(
        &on_risk(),
        "find . a b c -name '*.rs' -exec wc -l {} + -exec grep -n x {} ;",
    );
}

/// Commands nested past the policy's depth were asked about, and an ask
/// runs in the `auto` mode: `eval eval ... rm -rf /` (and the same through
/// `find -exec`) ran there. Past the depth a line is now refused in every
/// mode; shallower nesting is still judged on what it runs.
#[test]
fn commands_nested_past_the_limit_are_refused_in_every_mode() {
    for wrapper in ["eval ", "find . -exec "] {
        let line = format!("{}rm -rf /", wrapper.repeat(12));
        assert_forbidden(&on_risk(), &line, &[]);
        let harmless = format!("{}ls", wrapper.repeat(12));
        assert_forbidden(&on_risk(), &harmless, &["nested too deeply"]);
    }
    assert_forbidden(&on_risk(), "eval eval eval rm -rf /", &["/"]);
    assert_asks(&on_risk(), "eval eval eval ls", &["eval"]);
}
