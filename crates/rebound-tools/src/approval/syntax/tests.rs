//! Reading command lines: what is a command, a word, a redirection; what
//! is risky; what is broken.

#![allow(clippy::unwrap_used)]

use super::*;

fn read(line: &str) -> Script {
    parse(line).unwrap()
}

fn words(line: &str) -> Vec<Vec<String>> {
    read(line).commands.into_iter().map(|c| c.words).collect()
}

#[test]
fn operators_separate_commands() {
    assert_eq!(
        words("a 1 && b 2 || c; d | e |& f & g\nh"),
        [
            vec!["a", "1"],
            vec!["b", "2"],
            vec!["c"],
            vec!["d"],
            vec!["e"],
            vec!["f"],
            vec!["g"],
            vec!["h"]
        ]
    );
}

#[test]
fn quotes_and_escapes_are_removed() {
    assert_eq!(
        words(r#"echo "a && b" 'c; d' e\;f r''m \rm "x\"y" $'\x72m'"#),
        [vec![
            "echo", "a && b", "c; d", "e;f", "rm", "rm", "x\"y", "rm"
        ]]
    );
    assert_eq!(
        words("echo \"$HOME\"/x ~/y"),
        [vec!["echo", "$HOME/x", "~/y"]]
    );
}

#[test]
fn substitutions_are_commands_too_and_risky() {
    let script = read("echo $(rm -rf /) `whoami`");
    let words: Vec<_> = script.commands.iter().map(|c| c.words.join(" ")).collect();
    assert_eq!(words, ["rm -rf /", "whoami", "echo $(rm -rf /) `whoami`"]);
    assert!(script.commands[0].substituted && script.commands[1].substituted);
    assert!(!script.commands[2].substituted);
    assert!(
        script.risks[0].contains("command substitution"),
        "{:?}",
        script.risks
    );
}

#[test]
fn redirections_are_not_words() {
    let script = read("cargo test 2>&1 > out.txt 2>/dev/null < in");
    let command = &script.commands[0];
    assert_eq!(command.words, ["cargo", "test"]);
    assert_eq!(command.writes, ["out.txt", "/dev/null"]);
    assert_eq!(command.reads, ["in"]);
    // The grammar hangs a later word on the redirection; it is an argument.
    assert_eq!(words("rm > /dev/null -rf /"), [vec!["rm", "-rf", "/"]]);
    // A pipeline's redirection is its last command's.
    let script = read("ls | grep foo > out.txt");
    assert_eq!(script.commands[1].writes, ["out.txt"]);
}

#[test]
fn heredocs_and_herestrings_are_stdin() {
    let script = read("bash <<'EOF'\nrm -rf /\nEOF\nls");
    assert_eq!(script.commands.len(), 2);
    assert_eq!(script.commands[0].stdin_scripts, ["rm -rf /\n"]);
    assert_eq!(script.commands[1].words, ["ls"]);
    assert!(script.risks.is_empty());
    let script = read("cat <<-EOF\n\tx \\$y\n\tEOF");
    assert_eq!(script.commands[0].stdin_scripts, ["x $y\n"]);
    let script = read("cat <<< 'hi'");
    assert_eq!(script.commands[0].stdin_scripts, ["hi"]);
}

#[test]
fn an_expanding_heredoc_is_risky_and_its_substitutions_are_read() {
    let script = read("cat <<EOF\n$(rm -rf /)\n`id`\nEOF");
    let words: Vec<_> = script.commands.iter().map(|c| c.words.join(" ")).collect();
    assert!(words.contains(&"rm -rf /".to_string()), "{words:?}");
    assert!(words.contains(&"id".to_string()), "{words:?}");
    assert!(script.risks[0].contains("here-document"));
}

#[test]
fn pipelines_are_numbered_and_known_output_is_piped() {
    let script = read("curl x | sh; ls");
    let p: Vec<_> = script.commands.iter().map(|c| c.pipeline).collect();
    assert_eq!(p[0], p[1]);
    assert_ne!(p[1], p[2]);
    let script = read("echo 'rm -rf /' | sh");
    assert_eq!(script.commands[1].piped, ["rm -rf /"]);
    let script = read("cat <<EOF | bash\nls\nEOF");
    assert_eq!(script.commands[1].words, ["bash"]);
    assert_eq!(script.commands[1].piped, ["ls\n"]);
}

#[test]
fn compound_commands_are_walked() {
    assert_eq!(
        words("if grep -q x f; then rm -rf /; fi; { ls; }; (cd a && pwd); while true; do id; done"),
        [
            vec!["grep", "-q", "x", "f"],
            vec!["rm", "-rf", "/"],
            vec!["ls"],
            vec!["cd", "a"],
            vec!["pwd"],
            vec!["true"],
            vec!["id"]
        ]
    );
    let script = read("for f in *.rs; do cat $f; done");
    assert_eq!(script.other_words, ["f", "*.rs"]);
    assert!(script.risks.is_empty());
}

#[test]
fn only_the_known_kinds_are_understood() {
    for understood in [
        "cargo test && git status",
        "A=1 B='x y' cargo test 2>&1 | tail -20",
        "echo ${HOME} ${#x} ${x:-d} $1 \"$@\" # comment",
        "[ -f x ] && [[ $a == b* ]] || test -d y",
        "case $x in a|b) ls;; *) pwd;; esac",
        "export A=1; unset B",
        "! grep -q x f",
    ] {
        let script = read(understood);
        assert!(script.risks.is_empty(), "{understood}: {:?}", script.risks);
        assert_eq!(script.broken, None, "{understood}");
    }
    for (risky, why) in [
        ("f() { ls; }", "function definition"),
        ("echo $((1+2))", "arithmetic"),
        ("(( x++ ))", "arithmetic"),
        ("[[ $a -eq 1 ]]", "arithmetic"),
        ("a[1]=2", "arithmetic"),
        ("echo ${x@P}", "expansion"),
        ("echo ${x:1:2}", "expansion"),
        ("cat <(ls)", "process substitution"),
        ("[ a > b ]", "redirection"),
        ("echo $\"translated\"", "not understood"),
    ] {
        let script = read(risky);
        assert!(
            script.risks.first().is_some_and(|r| r.contains(why)),
            "{risky}: {:?}",
            script.risks
        );
    }
}

#[test]
fn what_does_not_parse_is_broken() {
    for (line, why) in [
        ("echo 'a", "an unclosed `'`"),
        ("echo \"a", "an unclosed `\"`"),
        ("echo a)", "a `)` that closes nothing"),
        ("if true; then ls", "an unfinished `if`"),
    ] {
        assert_eq!(read(line).broken.as_deref(), Some(why), "{line}");
    }
    let deep = format!("{}ls{}", "(".repeat(300), ")".repeat(300));
    assert!(read(&deep).broken.is_some());
    let lenient = parse_lenient("echo 'oops && rm -rf /").unwrap();
    assert_eq!(lenient.commands[1].words, ["rm", "-rf", "/"]);
}

#[test]
fn words_know_where_they_are() {
    let line = "cargo test && /usr/bin/git status";
    let script = read(line);
    let git = &script.commands[1];
    assert_eq!(&line[git.spans[0].clone()], "/usr/bin/git");
    assert_eq!(&line[git.spans[1].clone()], "status");
}
