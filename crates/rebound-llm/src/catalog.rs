//! The local models `scripts/fetch-model` installs, and where it installs
//! them. Available without the `local` feature, so a front end can list,
//! locate and fetch models in a build that cannot run them.

use std::path::PathBuf;

use crate::LlmError;

/// A local model `scripts/fetch-model` installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownModel {
    /// The name in `local:<name>`.
    pub name: &'static str,
    /// The file in [`model_dir`].
    pub file: &'static str,
    /// Its size in bytes.
    pub bytes: u64,
    /// The `scripts/fetch-model` flags that install it.
    pub fetch_args: &'static [&'static str],
}

/// The known local models; the first is the default.
pub const KNOWN_MODELS: [KnownModel; 2] = [
    KnownModel {
        name: "qwen2.5-coder-1.5b",
        file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        bytes: 1_117_320_768,
        fetch_args: &[],
    },
    KnownModel {
        name: "qwen2.5-coder-0.5b",
        file: "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        bytes: 491_400_064,
        fetch_args: &["--small"],
    },
];

/// The known model called `name`; an unknown name is a
/// [`LlmError::Config`] listing the known ones.
pub fn known_model(name: &str) -> Result<&'static KnownModel, LlmError> {
    KNOWN_MODELS
        .iter()
        .find(|model| model.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = KNOWN_MODELS.iter().map(|m| m.name).collect();
            LlmError::Config(format!(
                "local:{name}: unknown local model; use a path to a .gguf file or one of: {}",
                names.join(", ")
            ))
        })
}

impl KnownModel {
    /// The `scripts/fetch-model` command line that installs it.
    pub fn script_command(&self) -> String {
        std::iter::once("scripts/fetch-model")
            .chain(self.fetch_args.iter().copied())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The directory `scripts/fetch-model` installs models into:
/// `$REBOUND_MODEL_DIR`, else `$XDG_CACHE_HOME/rebound/models` (when
/// absolute, as the XDG spec asks), else `~/.cache/rebound/models`. Empty
/// variables count as unset.
pub fn model_dir() -> PathBuf {
    model_dir_with(|name| std::env::var(name).ok())
}

/// [`model_dir`] with the environment read through `lookup`.
pub fn model_dir_with(lookup: impl Fn(&str) -> Option<String>) -> PathBuf {
    let var = |name: &str| lookup(name).filter(|value| !value.is_empty());
    if let Some(dir) = var("REBOUND_MODEL_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(cache) = var("XDG_CACHE_HOME").filter(|dir| std::path::Path::new(dir).is_absolute())
    {
        return PathBuf::from(cache).join("rebound").join("models");
    }
    PathBuf::from(var("HOME").unwrap_or_default())
        .join(".cache")
        .join("rebound")
        .join("models")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_dir_follows_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let dir = |pairs| model_dir_with(env(pairs));
        assert_eq!(
            dir(&[("REBOUND_MODEL_DIR", "/m"), ("XDG_CACHE_HOME", "/c")]),
            PathBuf::from("/m")
        );
        assert_eq!(
            dir(&[("XDG_CACHE_HOME", "/c"), ("HOME", "/h")]),
            PathBuf::from("/c/rebound/models")
        );
        assert_eq!(
            dir(&[
                ("REBOUND_MODEL_DIR", ""),
                ("XDG_CACHE_HOME", "rel"),
                ("HOME", "/h")
            ]),
            PathBuf::from("/h/.cache/rebound/models")
        );
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let error = known_model("gpt-5").unwrap_err().to_string();
        assert!(error.contains("qwen2.5-coder-1.5b"), "{error}");
        assert_eq!(
            known_model("qwen2.5-coder-0.5b").unwrap().script_command(),
            "scripts/fetch-model --small"
        );
    }
}
