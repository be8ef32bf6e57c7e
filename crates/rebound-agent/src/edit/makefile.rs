//! Makefiles: a recipe line must start with a tab, which a model writing
//! a replacement often turns into spaces (`missing separator`). Part of
//! applying a replacement with whitespace tolerance: in a Makefile, a
//! recipe line indented with spaces gets the tab `make` requires.

pub(crate) use crate::localize::is_makefile;

/// `lines` with the leading spaces of each recipe line (a line indented
/// with spaces after a rule line or another recipe line, not continuing
/// a line that ends with `\`) replaced by one tab.
pub(crate) fn recipe_tabs(lines: &[&str]) -> Vec<String> {
    let mut in_rule = false;
    let mut continued = false;
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let continues = continued;
        continued = line.ends_with('\\');
        if line.trim().is_empty() || line.starts_with('\t') {
            out.push(line.to_string());
            continue;
        }
        if line.starts_with(' ') {
            if in_rule && !continues {
                out.push(format!("\t{}", line.trim_start_matches(' ')));
            } else {
                out.push(line.to_string());
            }
            continue;
        }
        if !continues {
            in_rule = is_rule(line);
        }
        out.push(line.to_string());
    }
    out
}

/// Whether an unindented `line` starts a rule (`target: prerequisites`),
/// not a variable assignment (`x := y`, `x = a:b`) or a comment.
fn is_rule(line: &str) -> bool {
    if line.starts_with('#') {
        return false;
    }
    let Some(colon) = line.find(':') else {
        return false;
    };
    let assignment_first = line.find('=').is_some_and(|equals| equals < colon);
    let colon_assignment = line[colon..].starts_with(":=") || line[colon..].starts_with("::=");
    !assignment_first && !colon_assignment
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipe_lines_get_their_tab() {
        let lines = [
            "CC = gcc",
            "FLAGS := -O2 \\",
            "    -Wall",
            "",
            "build: main.c",
            "    $(CC) $(FLAGS) -o app main.c \\",
            "        -lm",
            "",
            "    echo built",
            "\techo tabbed",
            "URL = http://x:80",
            "    not a recipe",
        ];
        assert_eq!(
            recipe_tabs(&lines),
            vec![
                "CC = gcc",
                "FLAGS := -O2 \\",
                "    -Wall",
                "",
                "build: main.c",
                "\t$(CC) $(FLAGS) -o app main.c \\",
                "        -lm",
                "",
                "\techo built",
                "\techo tabbed",
                "URL = http://x:80",
                "    not a recipe",
            ]
        );
        assert!(is_makefile("sub/Makefile"));
        assert!(is_makefile("rules.mk"));
        assert!(!is_makefile("Makefile.py"));
    }
}
