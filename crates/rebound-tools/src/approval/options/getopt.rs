//! Reading a command's options the way `getopt_long` does: short
//! options clustered (`-no FILE`), values in the same word or the next,
//! long options with `=` or the next word, abbreviated or not.

/// How a program reads its options.
#[derive(Debug, Clone, Copy)]
pub(super) enum Style {
    /// `getopt_long`: short clusters, `--long[=value]`.
    Getopt {
        /// Short options that take a value (the rest of the word, or the next).
        values: &'static str,
        /// Short options whose value is optional (only the rest of the word).
        optional: &'static str,
        /// Long options that take the next word when written without `=`.
        long_values: &'static [&'static str],
        /// Whether long options may be abbreviated.
        abbreviations: bool,
    },
    /// Single-dash words compared whole (`find -delete`, `test -v`).
    Words,
    /// The program itself is risky.
    Always,
}

/// Whether the option `given` (as written, `=value` cut) is the table's
/// `option`: the same, or (`abbreviations`) any prefix of a long one, as
/// `getopt_long` takes an unambiguous prefix (`sort --o=FILE`).
pub(super) fn option_matches(option: &str, given: &str, abbreviations: bool) -> bool {
    if option == given {
        return true;
    }
    let (Some(long), Some(given)) = (option.strip_prefix("--"), given.strip_prefix("--")) else {
        return false;
    };
    abbreviations && !given.is_empty() && long.starts_with(given)
}

/// A command's arguments read the way `getopt_long` reads them.
#[derive(Debug, Default)]
pub(super) struct Parsed<'a> {
    /// Options as written (`-o`, `--out`), each with its value.
    pub(super) options: Vec<(String, Option<&'a str>)>,
    /// The other arguments.
    pub(super) operands: Vec<&'a str>,
}

/// Reads `args` under `style`; `old_style` reads a first argument without
/// a dash as a cluster of short options (`tar xIf prog a.tar`).
pub(super) fn parse(style: Style, old_style: bool, args: &[String]) -> Parsed<'_> {
    let Style::Getopt {
        values,
        optional,
        long_values,
        abbreviations,
    } = style
    else {
        return Parsed::default();
    };
    let mut parsed = Parsed::default();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        let first_bundle = old_style && i == 1 && !arg.starts_with('-');
        if arg == "--" {
            parsed.operands.extend(args[i..].iter().map(String::as_str));
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (format!("--{name}"), Some(value)),
                None => (arg.clone(), None),
            };
            let takes_next = value.is_none()
                && long_values
                    .iter()
                    .any(|o| option_matches(o, &name, abbreviations));
            let value = if takes_next {
                i += 1;
                args.get(i - 1).map(String::as_str)
            } else {
                value
            };
            parsed.options.push((name, value));
            continue;
        }
        let cluster = match arg.strip_prefix('-') {
            Some(cluster) if !cluster.is_empty() => cluster,
            _ if first_bundle => arg.as_str(),
            _ => {
                parsed.operands.push(arg);
                continue;
            }
        };
        for (at, c) in cluster.char_indices() {
            let rest = &cluster[at + c.len_utf8()..];
            if values.contains(c) {
                let value = if !rest.is_empty() && !first_bundle {
                    Some(rest)
                } else {
                    i += 1;
                    args.get(i - 1).map(String::as_str)
                };
                parsed.options.push((format!("-{c}"), value));
                if !first_bundle {
                    break;
                }
            } else if optional.contains(c) {
                parsed
                    .options
                    .push((format!("-{c}"), Some(rest).filter(|r| !r.is_empty())));
                break;
            } else {
                parsed.options.push((format!("-{c}"), None));
            }
        }
    }
    parsed
}
