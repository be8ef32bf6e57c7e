//! gcc's and clang's errors, `main.c:7:20: error: ‘y’ undeclared`, with the
//! function of a preceding `main.c: In function ‘main’:`; and the linker's
//! `undefined reference to `f'`.

use super::{Claims, Context, Found};
use crate::failure::{Failure, FailureKind, Location};
use crate::text::{one_line, split_position};

/// An error's message is not extended by notes beyond this length.
const MAX_NOTED_CHARS: usize = 300;

/// Reads the errors.
pub(crate) fn parse(lines: &[String], claims: &mut Claims, context: &Context) -> Vec<Found> {
    let mut found = Vec::new();
    // gcc's `main.c: In function ‘main’:`, the linker's `in function
    // `main'`, and where gcc warned of an implicit declaration.
    let mut function: Option<(String, String)> = None;
    let mut caller: Option<String> = None;
    let mut implicit: Vec<(String, Location)> = Vec::new();
    let mut linked = false;
    for (i, line) in lines.iter().enumerate() {
        if claims.is_claimed(i) || line.starts_with(char::is_whitespace) {
            continue;
        }
        if let Some(entered) = in_function(line) {
            function = Some(entered);
            continue;
        }
        if let Some(name) = linker_function(line) {
            caller = Some(name);
            continue;
        }
        if let Some((_, symbol)) = line.split_once("undefined reference to ") {
            claims.claim(i..i + 1);
            linked = true;
            found.push(Found::at(
                i,
                undefined(symbol.trim(), caller.as_deref(), &implicit),
            ));
            continue;
        }
        if let Some(missing) = linker_cannot_find(line) {
            // `/usr/bin/ld: cannot find textstats.o: No such file or
            // directory`: an input the link line names and no rule made.
            claims.claim(i..i + 1);
            linked = true;
            found.push(Found::at(
                i,
                Failure::new(
                    FailureKind::CCompileError,
                    one_line([format!("ld: cannot find {missing}").as_str()]),
                ),
            ));
            continue;
        }
        if line.starts_with("collect2: error: ") || line.starts_with("clang: error: linker") {
            claims.claim(i..i + 1);
            let mut failure = Found::at(
                i,
                Failure::new(FailureKind::CCompileError, one_line([line.as_str()])),
            );
            failure.consequence = linked;
            found.push(failure);
            continue;
        }
        let Some((path, number, column, rest)) = split_position(line) else {
            continue;
        };
        let rest = rest.trim_start();
        let function_name = function
            .as_ref()
            .filter(|(file, _)| file == path)
            .map(|(_, name)| name.as_str());
        if let Some(name) = rest.strip_prefix("warning: implicit declaration of function ") {
            let name = unquote(name.split(" [").next().unwrap_or(name));
            let location = context.location(path, number, column, function_name);
            implicit.push((name.to_string(), location));
            continue;
        }
        if let Some(note) = rest.strip_prefix("note: ") {
            // What the compiler adds about another place to the error
            // before it (`previous declaration of ‘mean’ with type
            // ‘double(…)’` in the header): part of its message, with where
            // it points. A note on the error's own line restates it.
            if let Some(last) = found.last_mut().filter(|f| !f.consequence) {
                let elsewhere = last.failure.location.as_ref().is_some_and(|at| {
                    at.line != number || !at.file.ends_with(path.trim_start_matches("./"))
                });
                if elsewhere
                    && last.failure.kind == FailureKind::CCompileError
                    && last.failure.message.chars().count() < MAX_NOTED_CHARS
                {
                    let noted = format!(
                        "{} (note: {path}:{number}: {})",
                        last.failure.message,
                        note.trim()
                    );
                    last.failure.message = one_line([noted.as_str()]);
                    claims.claim(i..i + 1);
                }
            }
            continue;
        }
        if !(rest.starts_with("error: ") || rest.starts_with("fatal error: ")) {
            continue;
        }
        let mut failure = Failure::new(FailureKind::CCompileError, one_line([rest]));
        failure.location = Some(context.location(path, number, column, function_name));
        if let Some((build, note)) = context
            .include_path_fault(rest)
            .or_else(|| context.generated_header_fault(rest, path))
        {
            // The workspace has the header, or the Makefile makes it: the
            // `#include` is right, and the build is what lacks it (its
            // directory on the command line, or the rule's prerequisite).
            failure.message = one_line([format!("{rest} ({note})").as_str()]);
            failure.location = Some(build);
        }
        claims.claim(i..i + 1);
        found.push(Found::at(i, failure));
    }
    found
}

/// The linker's `undefined reference to `f'`, located where gcc warned
/// that `f` was implicitly declared (the call), when it did.
fn undefined(symbol: &str, caller: Option<&str>, implicit: &[(String, Location)]) -> Failure {
    let mut message = format!("undefined reference to {symbol}");
    if let Some(caller) = caller {
        message.push_str(&format!(" (in function {caller})"));
    }
    let mut failure = Failure::new(FailureKind::CCompileError, one_line([message.as_str()]));
    failure.location = implicit
        .iter()
        .find(|(name, _)| name == unquote(symbol))
        .map(|(_, location)| location.clone());
    failure
}

/// Reads the linker's `/usr/bin/ld: cannot find x.o: No such file or
/// directory` (or `ld.gold: …`) into `x.o: No such file or directory`.
fn linker_cannot_find(line: &str) -> Option<&str> {
    let (program, missing) = line.split_once(": cannot find ")?;
    let name = program.rsplit('/').next().unwrap_or(program);
    (name == "ld" || name.starts_with("ld.")).then_some(missing.trim())
}

/// Reads the linker's `/usr/bin/ld: main.o: in function `main':` into
/// `` `main' ``.
fn linker_function(line: &str) -> Option<String> {
    let (_, rest) = line.split_once(": in function ")?;
    Some(rest.trim_end().strip_suffix(':')?.to_string())
}

/// `name` without the quotes compilers put around it (`‘f’`, `` `f' ``).
fn unquote(name: &str) -> &str {
    name.trim()
        .trim_matches(|c| matches!(c, '‘' | '’' | '\'' | '`' | '"'))
}

/// Reads `main.c: In function ‘main’:` (gcc) into the file and function.
fn in_function(line: &str) -> Option<(String, String)> {
    let (file, rest) = line.split_once(": In function ")?;
    let name = rest
        .trim_end()
        .strip_suffix(':')?
        .trim_matches(|c| matches!(c, '‘' | '’' | '\'' | '`'));
    Some((file.to_string(), name.to_string()))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::parse::parse as parse_output;

    #[test]
    fn a_note_joins_the_error_it_explains() {
        let output = "gcc -Wall -O2 -o stats main.c stats.c\nstats.c:3:5: error: conflicting types for ‘mean’; have ‘int(const int *, int)’\n    3 | int mean(const int *values, int count)\n      |     ^~~~\nIn file included from stats.c:1:\nstats.h:4:8: note: previous declaration of ‘mean’ with type ‘double(const int *, int)’\n    4 | double mean(const int *values, int count);\n      |        ^~~~\nmake: *** [Makefile:5: stats] Error 1\n";
        let failures = parse_output("make", output, Path::new("/nonexistent"));
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert_eq!(
            failures[0].message,
            "error: conflicting types for ‘mean’; have ‘int(const int *, int)’ (note: stats.h:4: previous declaration of ‘mean’ with type ‘double(const int *, int)’)"
        );
        assert_eq!(failures[0].location.as_ref().unwrap().line, 3);
    }

    #[test]
    fn functions_are_read() {
        assert_eq!(
            in_function("main.c: In function ‘main’:"),
            Some(("main.c".into(), "main".into()))
        );
        assert_eq!(in_function("main.c:7:20: error: x"), None);
    }

    #[test]
    fn a_clang_error_and_a_missing_header() {
        let output = "main.c:7:20: error: use of undeclared identifier 'y'\n    printf(\"%d\\n\", y);\n                   ^\nlib.c:1:10: fatal error: 'nope.h' file not found\n#include \"nope.h\"\n         ^~~~~~~~\n2 errors generated.\n";
        let failures = parse_output("clang -c main.c lib.c", output, Path::new("/nonexistent"));
        let messages: Vec<&str> = failures.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "error: use of undeclared identifier 'y'",
                "fatal error: 'nope.h' file not found"
            ]
        );
    }

    #[test]
    fn a_header_the_workspace_has_is_a_fault_of_the_build_file() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::create_dir_all(ws.join("include")).unwrap();
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::fs::write(ws.join("include/ops.h"), "int apply(void);\n").unwrap();
        std::fs::write(ws.join("src/main.c"), "#include \"ops.h\"\n").unwrap();
        std::fs::write(
            ws.join("build.sh"),
            "#!/bin/bash\nset -e\nmkdir -p build\ngcc -Iheaders -o build/calc src/main.c\n",
        )
        .unwrap();
        let output = "src/main.c:1:10: fatal error: ops.h: No such file or directory\n    1 | #include \"ops.h\"\ncompilation terminated.\n";
        let failures = parse_output("./build.sh", output, ws);
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert_eq!(
            failures[0].message,
            "fatal error: ops.h: No such file or directory (ops.h is in include/ of the workspace: the compiler's include path (-I) in build.sh does not name it)"
        );
        let at = failures[0].location.as_ref().unwrap();
        assert_eq!((at.file.as_str(), at.line), ("build.sh", 4));
        // A header the workspace lacks is the code's (or the system's).
        let output = "src/main.c:1:10: fatal error: nope.h: No such file or directory\n";
        let failures = parse_output("./build.sh", output, ws);
        let at = failures[0].location.as_ref().unwrap();
        assert_eq!((at.file.as_str(), at.line), ("src/main.c", 1));
    }

    #[test]
    fn a_header_the_makefile_makes_but_the_object_does_not_wait_for_is_the_makefiles() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join("main.c"), "#include \"version.h\"\n").unwrap();
        std::fs::write(ws.join("VERSION"), "1.2\n").unwrap();
        let makefile = "CC = gcc\n\nprog: main.o\n\t$(CC) -o $@ main.o\n\nmain.o: main.c\n\t$(CC) -c main.c\n\n# made from VERSION\nversion.h: VERSION\n\tprintf x > $@\n";
        std::fs::write(ws.join("Makefile"), makefile).unwrap();
        let output = "gcc -c main.c\nmain.c:1:10: fatal error: version.h: No such file or directory\ncompilation terminated.\n";
        let failures = parse_output("make", output, ws);
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert_eq!(
            failures[0].message,
            "fatal error: version.h: No such file or directory (Makefile makes version.h (line 10), but the rule on line 6 compiles main.c without listing version.h among its prerequisites, so make never makes it first)"
        );
        let at = failures[0].location.as_ref().unwrap();
        assert_eq!((at.file.as_str(), at.line), ("Makefile", 6));
        // A header no rule makes stays the code's.
        let output = "main.c:1:10: fatal error: other.h: No such file or directory\n";
        let at = parse_output("make", output, ws)[0]
            .location
            .clone()
            .unwrap();
        assert_eq!((at.file.as_str(), at.line), ("main.c", 1));
    }
}
