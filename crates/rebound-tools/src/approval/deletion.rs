//! `rm -r`: what it may never delete. A recursive `rm` is forbidden, in
//! every mode, when a target
//!
//! - is the root, the home directory or a top-level system directory
//!   (`/`, `~`, `$HOME`, `${HOME:?}`, `/usr`, `/tmp/..`...);
//! - is an absolute path, or a path in the home directory, outside the
//!   workspace root ([`ApprovalPolicy::with_workspace`]; without one, every
//!   absolute path is outside);
//! - is only known when the command runs and may be anything: a bare
//!   variable or substitution (`$h`, `"$dir"`, `$(echo ~)`), or one that
//!   starts a path unguarded (`$dir/build` is `/build` when `dir` is
//!   empty), or `~user`.
//!
//! It is asked about (even when an allow rule matches) when a target
//! climbs out of the working directory (`../x`) or holds an expansion
//! that cannot be resolved (`build/$x`, `${dir:?}/build`).
//!
//! [`ApprovalPolicy::with_workspace`]: super::ApprovalPolicy::with_workspace

use std::path::{Path, PathBuf};

use super::judgement::Judgement;
use super::paths::{
    climbs_out, expansion_name, home_relative, is_precious, is_within, leading_expansion,
    normalise_path,
};

/// The judgement of `rm ARGS` when it deletes recursively, if any target
/// is a problem.
pub(super) fn judge_rm(args: &[String], workspace: Option<&Path>) -> Option<Judgement> {
    let (recursive, targets) = read_args(args);
    if !recursive {
        return None;
    }
    targets
        .into_iter()
        .flat_map(|target| expand_braces(target, 0))
        .filter_map(|target| judge_target(&target, workspace))
        .reduce(Judgement::max)
}

/// Whether `rm` deletes recursively, and its targets.
fn read_args(args: &[String]) -> (bool, Vec<&str>) {
    let mut recursive = false;
    let mut targets = Vec::new();
    let mut options_done = false;
    for arg in args {
        if options_done || !arg.starts_with('-') || arg == "-" {
            targets.push(arg.as_str());
        } else if arg == "--" {
            options_done = true;
        } else if let Some(long) = arg.strip_prefix("--") {
            // GNU rm takes any unambiguous prefix of `--recursive`.
            recursive |= !long.is_empty() && "recursive".starts_with(long);
        } else {
            recursive |= arg.contains(['r', 'R']);
        }
    }
    (recursive, targets)
}

/// The judgement of `rm -r TARGET`, if the target is a problem.
fn judge_target(target: &str, workspace: Option<&Path>) -> Option<Judgement> {
    if is_precious(target) {
        return Some(Judgement::forbid(format!(
            "`rm` would recursively delete `{target}`"
        )));
    }
    if let Some(rest) = home_relative(target) {
        return judge_in_home(target, rest, workspace);
    }
    if let Some(after) = target.strip_prefix("~+") {
        return judge_relative(target, after.trim_start_matches('/'));
    }
    if target.starts_with('~') {
        return Some(Judgement::forbid(format!(
            "`rm -r {target}` would delete another user's home or the previous directory"
        )));
    }
    if let Some((expansion, rest)) = leading_expansion(target) {
        return Some(judge_unknown_start(target, expansion, rest));
    }
    if target.starts_with('/') {
        return judge_absolute(target, workspace);
    }
    judge_relative(target, target)
}

/// `~/x`, `$HOME/x`: forbidden outside the workspace.
fn judge_in_home(target: &str, rest: &str, workspace: Option<&Path>) -> Option<Judgement> {
    let normal = normalise_path(&format!("~{rest}"));
    if normal == "~" || normal == "/" {
        return Some(Judgement::forbid(format!(
            "`rm` would recursively delete `{target}`: the home directory"
        )));
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let resolved = home.and_then(|home| {
        let home = home.to_str()?.trim_end_matches('/').to_string();
        Some(normalise_path(&format!("{home}{}", &normal[1..])))
    });
    let inside =
        matches!((resolved, workspace), (Some(path), Some(root)) if is_within(&path, root));
    (!inside).then(|| {
        Judgement::forbid(format!(
            "`rm -r {target}` would delete part of the home directory outside the workspace"
        ))
    })
}

/// `$h`, `$dir/build`, `$(...)`: a target that starts with something
/// only known when the command runs.
fn judge_unknown_start(target: &str, expansion: &str, rest: &str) -> Judgement {
    if rest.chars().all(|c| matches!(c, '/' | '*' | '.')) {
        return Judgement::forbid(format!(
            "`rm -r {target}` deletes whatever `{expansion}` turns out to be when it runs"
        ));
    }
    let guarded = expansion.starts_with("${")
        && expansion_name(expansion)
            .and_then(|name| expansion.get(2 + name.len()..))
            .is_some_and(|after| after.starts_with(":?") || after.starts_with('?'));
    if guarded {
        return Judgement::ask(format!(
            "`rm -r {target}`: what it deletes is only known when it runs"
        ));
    }
    Judgement::forbid(format!(
        "`rm -r {target}` would delete `{rest}` if `{expansion}` is empty or unset"
    ))
}

/// `/x/y`: forbidden unless inside the workspace root.
fn judge_absolute(target: &str, workspace: Option<&Path>) -> Option<Judgement> {
    // Only the part before the first expansion is known.
    let known = match target.find(['$', '`']) {
        Some(at) => &target[..target[..at].rfind('/').unwrap_or(0).max(1)],
        None => target,
    };
    let normal = normalise_path(known);
    if is_precious(&normal) {
        return Some(Judgement::forbid(format!(
            "`rm` would recursively delete `{target}`, in `{normal}`"
        )));
    }
    match workspace {
        Some(root) if is_within(&normal, root) => (known != target).then(|| {
            Judgement::ask(format!(
                "`rm -r {target}`: what it deletes is only known when it runs"
            ))
        }),
        Some(root) => Some(Judgement::forbid(format!(
            "`rm -r {target}` would delete `{normal}`, outside the workspace `{}`",
            root.display()
        ))),
        None => Some(Judgement::forbid(format!(
            "`rm -r {target}` would delete `{normal}`, an absolute path outside the workspace"
        ))),
    }
}

/// `build`, `../x`, `build/$x`: asked about when it may leave the
/// working directory or is only known when it runs.
fn judge_relative(target: &str, relative: &str) -> Option<Judgement> {
    if climbs_out(relative) {
        return Some(Judgement::ask(format!(
            "`rm -r {target}` climbs out of the working directory, maybe out of the workspace"
        )));
    }
    relative.contains(['$', '`']).then(|| {
        Judgement::ask(format!(
            "`rm -r {target}`: what it deletes is only known when it runs"
        ))
    })
}

/// The words a brace expansion makes of `word` (`a{b,c}` is `ab`, `ac`);
/// a sequence (`{1..3}`) of letters or numbers stands for its first
/// element, any other sequence for an unknown `$?` part.
fn expand_braces(word: &str, depth: usize) -> Vec<String> {
    let Some((open, close)) = brace_group(word).filter(|_| depth < 8) else {
        return vec![word.to_string()];
    };
    let (head, inner, tail) = (&word[..open], &word[open + 1..close], &word[close + 1..]);
    let choices: Vec<String> = if let Some((from, to)) = inner.split_once("..") {
        let plain =
            |s: &str| s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') && !s.is_empty();
        vec![if plain(from) && plain(to) {
            from.to_string()
        } else {
            "$?".to_string()
        }]
    } else {
        split_top_level(inner)
    };
    choices
        .into_iter()
        .flat_map(|choice| expand_braces(&format!("{head}{choice}{tail}"), depth + 1))
        .collect()
}

/// The first `{...}` group holding a top-level `,` or `..`.
fn brace_group(word: &str) -> Option<(usize, usize)> {
    let open = word.find('{')?;
    let mut depth = 0usize;
    for (i, c) in word.char_indices().skip_while(|(i, _)| *i < open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    let inner = &word[open + 1..i];
                    let is_group = inner.contains("..") || split_top_level(inner).len() > 1;
                    let preceded_by_dollar = word[..open].ends_with('$');
                    return (is_group && !preceded_by_dollar).then_some((open, i));
                }
            }
            _ => {}
        }
    }
    None
}

/// `a,{b,c},d` split on its top-level commas.
fn split_top_level(inner: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::RuleAction::{self, Ask, Forbid};

    fn action(line: &str, workspace: Option<&str>) -> Option<RuleAction> {
        let args: Vec<String> = line
            .split_whitespace()
            .skip(1)
            .map(str::to_string)
            .collect();
        judge_rm(&args, workspace.map(Path::new)).map(|j| j.action)
    }

    #[test]
    fn targets_outside_the_workspace() {
        for line in [
            "rm -rf /",
            "rm -rf /home/alice",
            "rm -rf /tmp/scratch",
            "rm -rf ~",
            "rm -rf ~/",
            "rm -rf ~/project",
            "rm -rf ${HOME:?}",
            "rm -rf $HOME/",
            "rm -rf $h",
            "rm -rf $(echo ~)",
            "rm -rf $dir/build",
            "rm -rf ~alice",
            "rm -rf {/,x}",
            "rm -rf /ws/../etc",
            "rm --rec /tmp/x",
            "rm / -r",
        ] {
            assert_eq!(action(line, Some("/ws")), Some(Forbid), "{line}");
        }
    }

    #[test]
    fn targets_inside_or_unknown() {
        assert_eq!(action("rm -rf /ws/target", Some("/ws")), None);
        assert_eq!(action("rm -rf /tmp/scratch", Some("/tmp")), None);
        assert_eq!(action("rm -rf build x{1..3}", None), None);
        assert_eq!(action("rm -rf build/{a,b}", None), None);
        assert_eq!(action("rm -rf ../x", None), Some(Ask));
        assert_eq!(action("rm -rf build/$x", None), Some(Ask));
        assert_eq!(action("rm -rf ${dir:?}/build", None), Some(Ask));
        assert_eq!(action("rm -rf /ws/$x", Some("/ws")), Some(Ask));
        assert_eq!(action("rm -f /tmp/x", None), None);
        assert_eq!(action("rm -f $h", None), None);
    }

    #[test]
    fn braces() {
        assert_eq!(expand_braces("a{b,c}d", 0), ["abd", "acd"]);
        assert_eq!(expand_braces("{/,x}", 0), ["/", "x"]);
        assert_eq!(expand_braces("x{1..3}", 0), ["x1"]);
        assert_eq!(expand_braces("{/..0}", 0), ["$?"]);
        assert_eq!(expand_braces("${x}", 0), ["${x}"]);
    }
}
