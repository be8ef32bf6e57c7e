//! Secrets by value: an environment value that looks like a credential (a
//! known token prefix, or long, random-looking text) is a secret whatever
//! its variable is called, and so is the password of a URL. The
//! [`Redactor`] masks every such value of rebound's own environment in
//! what tools return, so a secret that reaches a command's output some
//! other way (a file, a config dump) still does not reach the model, the
//! checkpoints or the artifacts.

use std::borrow::Cow;
use std::sync::OnceLock;

/// Secret variables whose names the suffix rules do not catch.
const KNOWN_SECRETS: &[&str] = &["AWS_ACCESS_KEY_ID", "NPM_CONFIG__AUTH"];

/// Name endings (after an `_`, or the whole name) that mark a secret.
const SECRET_SUFFIXES: &[&str] = &[
    "KEY",
    "KEYS",
    "PAT",
    "PASS",
    "TOKEN",
    "SECRET",
    "SECRETS",
    "PASSWORD",
    "PASSWD",
    "CREDENTIALS",
];

/// Whether an environment variable called `name` holds a secret that a
/// command must not see: a known provider key (`OPENAI_API_KEY`,
/// `ANTHROPIC_API_KEY`, `AWS_ACCESS_KEY_ID`, ...) or any name ending in
/// `_KEY`, `_TOKEN`, `_SECRET`, `_PASSWORD` (and a few kin), compared
/// case-insensitively. Names in `allow` (exact, case-insensitive) are never
/// secrets.
pub fn is_secret_env(name: &str, allow: &[String]) -> bool {
    if allow
        .iter()
        .any(|allowed| allowed.eq_ignore_ascii_case(name))
    {
        return false;
    }
    let upper = name.to_ascii_uppercase();
    if KNOWN_SECRETS.contains(&upper.as_str()) {
        return true;
    }
    SECRET_SUFFIXES.iter().any(|suffix| {
        upper == *suffix
            || upper
                .strip_suffix(suffix)
                .is_some_and(|rest| rest.ends_with('_'))
    })
}

/// Prefixes of well-known credentials (API keys, personal access tokens,
/// cloud key ids, private keys).
const TOKEN_PREFIXES: &[&str] = &[
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xoxa-",
    "xoxb-",
    "xoxp-",
    "xoxr-",
    "xapp-",
    "AKIA",
    "ASIA",
    "AIza",
    "ya29.",
    "hf_",
    "npm_",
    "pypi-",
    "-----BEGIN",
];

/// Shortest value a prefix rule applies to.
const MIN_PREFIXED_CHARS: usize = 16;

/// Shortest value the randomness rule applies to.
const MIN_RANDOM_CHARS: usize = 24;

/// Bits of entropy per character from which a long value counts as random.
const MIN_ENTROPY_BITS: f64 = 4.0;

/// Shortest secret the redactor masks (shorter ones would mask ordinary
/// words).
const MIN_MASKED_CHARS: usize = 8;

/// What replaces a secret.
pub const MASK: &str = "[secret]";

/// Whether `value` looks like a credential: a known token prefix on a
/// value of at least 16 characters, or at least 24 characters of
/// token-like text (no spaces, no `:` or `;` lists, not a path) that is
/// random (Shannon entropy of 4 bits per character or more, with at least
/// two of lower case, upper case and digits).
pub fn looks_like_secret(value: &str) -> bool {
    let value = value.trim();
    let count = value.chars().count();
    if count >= MIN_PREFIXED_CHARS && TOKEN_PREFIXES.iter().any(|p| value.starts_with(p)) {
        return true;
    }
    if count < MIN_RANDOM_CHARS
        || value.starts_with('/')
        || value.contains([' ', '\t', ':', ';', ','])
        || !value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_+=/.".contains(c))
    {
        return false;
    }
    let classes = [
        value.chars().any(|c| c.is_ascii_lowercase()),
        value.chars().any(|c| c.is_ascii_uppercase()),
        value.chars().any(|c| c.is_ascii_digit()),
    ];
    classes.iter().filter(|present| **present).count() >= 2 && entropy(value) >= MIN_ENTROPY_BITS
}

/// The password of a URL with credentials (`scheme://user:password@host`).
pub fn url_password(value: &str) -> Option<&str> {
    let (_, rest) = value.split_once("://")?;
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    let (credentials, _) = authority.rsplit_once('@')?;
    let (_, password) = credentials.split_once(':')?;
    (!password.is_empty()).then_some(password)
}

/// Shannon entropy of `text`, in bits per character.
fn entropy(text: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for c in text.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let total = text.chars().count() as f64;
    counts
        .values()
        .map(|&n| {
            let p = n as f64 / total;
            -p * p.log2()
        })
        .sum()
}

/// Masks known secret values in text.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// The values to mask, longest first.
    secrets: Vec<String>,
}

impl Redactor {
    /// The secrets of `vars`: the values of variables with secret names
    /// ([`is_secret_env`]), values that [`looks_like_secret`], and
    /// URL passwords; each at least 8 characters.
    pub fn from_vars<I, K, V>(vars: I) -> Redactor
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut secrets: Vec<String> = Vec::new();
        for (name, value) in vars {
            let value = value.as_ref();
            if is_secret_env(name.as_ref(), &[]) || looks_like_secret(value) {
                secrets.push(value.trim().to_string());
            }
            if let Some(password) = url_password(value) {
                secrets.push(password.to_string());
            }
        }
        secrets.retain(|s| s.chars().count() >= MIN_MASKED_CHARS);
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Redactor { secrets }
    }

    /// The redactor of this process's environment, read once.
    pub fn from_process() -> &'static Redactor {
        static REDACTOR: OnceLock<Redactor> = OnceLock::new();
        REDACTOR.get_or_init(|| {
            Redactor::from_vars(
                std::env::vars_os()
                    .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))),
            )
        })
    }

    /// `text` with every secret replaced by [`MASK`].
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if !self.secrets.iter().any(|s| text.contains(s.as_str())) {
            return Cow::Borrowed(text);
        }
        let mut out = text.to_string();
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), MASK);
            }
        }
        Cow::Owned(out)
    }

    /// Whether there is nothing to mask.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_recognised_by_their_value() {
        for secret in [
            "sk-proj-abcdefghijklmnop",
            "ghp_0123456789abcdefghijklmnopqrstuv",
            "AKIAIOSFODNN7EXAMPLE",
            "xoxb-1234-5678-abcdefghij",
            "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg",
            "aB3dE5gH7jK9mN1pQ3sT5vW7yZ",
        ] {
            assert!(looks_like_secret(secret), "{secret}");
        }
        for plain in [
            "/usr/local/bin:/usr/bin:/bin",
            "en_US.UTF-8",
            "/home/alice/.config",
            "xterm-256color",
            "a sentence that is quite long but has spaces",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "sk-short",
        ] {
            assert!(!looks_like_secret(plain), "{plain}");
        }
        assert_eq!(
            url_password("postgres://app:hunter2pass@db:5432/x"),
            Some("hunter2pass")
        );
        assert_eq!(url_password("https://example.com/a@b"), None);
        assert_eq!(url_password("https://user@example.com/"), None);
    }

    #[test]
    fn the_redactor_masks_secrets_by_name_value_and_url_password() {
        let redactor = Redactor::from_vars([
            ("DATABASE_URL", "postgres://app:hunter2pass@db/x"),
            ("GH_PAT", "ghp_0123456789abcdefghijklmnopqrstuv"),
            ("MY_API_KEYS", "k1-0123456789-abcdefghijkl"),
            ("SHORT_TOKEN", "abc"),
            ("HOME", "/home/alice"),
        ]);
        let text = "url=postgres://app:hunter2pass@db/x pat=ghp_0123456789abcdefghijklmnopqrstuv keys=k1-0123456789-abcdefghijkl home=/home/alice abc";
        assert_eq!(
            redactor.redact(text),
            "url=postgres://app:[secret]@db/x pat=[secret] keys=[secret] home=/home/alice abc"
        );
        assert!(matches!(redactor.redact("nothing here"), Cow::Borrowed(_)));
    }
}
