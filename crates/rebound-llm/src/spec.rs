//! Model strings: which provider and model a `--model` value names.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::LlmError;

/// A parsed model string.
///
/// | string | provider |
/// |---|---|
/// | `openai:<model>` | OpenAI-compatible Chat Completions (OpenAI, vLLM, llama.cpp server, LM Studio, OpenRouter) |
/// | `ollama:<model>` | Ollama's OpenAI-compatible endpoint on this machine |
/// | `anthropic:<model>` | the Anthropic Messages API |
/// | `local:<path.gguf or name>` | the embedded llama.cpp model |
/// | `scripted` | a scripted model, for tests |
///
/// ```
/// use rebound_llm::ModelSpec;
/// let spec: ModelSpec = "openai:gpt-4o-mini".parse().unwrap();
/// assert_eq!(spec, ModelSpec::OpenAi { model: "gpt-4o-mini".into() });
/// assert!("gpt-4o".parse::<ModelSpec>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ModelSpec {
    /// `openai:<model>`.
    OpenAi {
        /// The model name sent to the server.
        model: String,
    },
    /// `ollama:<model>`.
    Ollama {
        /// The model name.
        model: String,
    },
    /// `anthropic:<model>`.
    Anthropic {
        /// The model name.
        model: String,
    },
    /// `local:<path or known name>`.
    Local {
        /// A GGUF path, or a known name such as `qwen2.5-coder-1.5b`.
        model: LocalModel,
    },
    /// `scripted`.
    Scripted,
}

/// Which local model a `local:` string names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocalModel {
    /// A GGUF file.
    Path(PathBuf),
    /// A model `scripts/fetch-model` installs, by name.
    Known(String),
}

impl FromStr for ModelSpec {
    type Err = LlmError;

    fn from_str(s: &str) -> Result<Self, LlmError> {
        if s == "scripted" {
            return Ok(ModelSpec::Scripted);
        }
        let usage = || {
            LlmError::Config(format!(
                "model {s:?} is not of the form provider:model; use openai:<model>, ollama:<model>, anthropic:<model>, local:<path.gguf or name> or scripted"
            ))
        };
        let (provider, model) = s.split_once(':').ok_or_else(usage)?;
        if model.trim().is_empty() {
            return Err(LlmError::Config(format!(
                "model {s:?} names no model after {provider:?}"
            )));
        }
        let model = model.to_string();
        Ok(match provider {
            "openai" => ModelSpec::OpenAi { model },
            "ollama" => ModelSpec::Ollama { model },
            "anthropic" => ModelSpec::Anthropic { model },
            "local" => ModelSpec::Local {
                model: if model.ends_with(".gguf") || model.contains('/') {
                    LocalModel::Path(PathBuf::from(model))
                } else {
                    LocalModel::Known(model)
                },
            },
            _ => return Err(usage()),
        })
    }
}

impl fmt::Display for ModelSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelSpec::OpenAi { model } => write!(f, "openai:{model}"),
            ModelSpec::Ollama { model } => write!(f, "ollama:{model}"),
            ModelSpec::Anthropic { model } => write!(f, "anthropic:{model}"),
            ModelSpec::Local {
                model: LocalModel::Path(path),
            } => write!(f, "local:{}", path.display()),
            ModelSpec::Local {
                model: LocalModel::Known(name),
            } => write!(f, "local:{name}"),
            ModelSpec::Scripted => f.write_str("scripted"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses_and_prints_back() {
        for text in [
            "openai:gpt-4o-mini",
            "ollama:qwen2.5-coder:1.5b",
            "anthropic:claude-sonnet-4",
            "local:/models/q.gguf",
            "local:qwen2.5-coder-0.5b",
            "scripted",
        ] {
            let spec: ModelSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
        }
        assert_eq!(
            "ollama:qwen2.5-coder:1.5b".parse::<ModelSpec>().unwrap(),
            ModelSpec::Ollama {
                model: "qwen2.5-coder:1.5b".into()
            }
        );
    }

    #[test]
    fn bad_strings_say_what_is_expected() {
        for bad in ["gpt-4o", "openai:", "bogus:model"] {
            let error = bad.parse::<ModelSpec>().unwrap_err().to_string();
            assert!(
                error.contains(bad.split(':').next().unwrap_or(bad)),
                "{error}"
            );
        }
        assert!("gpt-4o"
            .parse::<ModelSpec>()
            .unwrap_err()
            .to_string()
            .contains("openai:<model>"));
    }
}
