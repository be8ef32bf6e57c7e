//! [`from_spec`]: the model a [`ModelSpec`] names.

use std::sync::Arc;

use crate::{AnthropicModel, ChatModel, LlmError, ModelSpec, OpenAiModel, ScriptedModel};

/// The model `spec` names, configured from the environment:
///
/// - `openai:<model>`: `OPENAI_API_KEY`, `OPENAI_BASE_URL` (see
///   [`OpenAiModel::from_env`]);
/// - `ollama:<model>`: `OLLAMA_HOST` (see [`OpenAiModel::ollama`]);
/// - `anthropic:<model>`: `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`;
/// - `scripted`: a [`ScriptedModel`] with an empty script;
/// - `local:<path.gguf or name>`: with the `local` feature, a
///   `local::LocalModel` (a known name is looked up in [`crate::model_dir`];
///   a missing file says which `scripts/fetch-model` command installs it);
///   without it, a [`LlmError::Config`] saying the feature is missing.
///
/// A missing key is a [`LlmError::Config`] naming the variable to set.
///
/// ```
/// use rebound_llm::{from_spec, ModelSpec};
/// let model = from_spec(&"scripted".parse::<ModelSpec>().unwrap()).unwrap();
/// assert_eq!(model.name(), "scripted");
/// ```
pub fn from_spec(spec: &ModelSpec) -> Result<Arc<dyn ChatModel>, LlmError> {
    from_spec_in(spec, |name| std::env::var(name).ok())
}

/// `from_spec` with the environment read through `lookup`.
fn from_spec_in(
    spec: &ModelSpec,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Arc<dyn ChatModel>, LlmError> {
    Ok(match spec {
        ModelSpec::OpenAi { model } => Arc::new(OpenAiModel::from_lookup(model.as_str(), lookup)?),
        ModelSpec::Ollama { model } => {
            Arc::new(OpenAiModel::ollama_from_lookup(model.as_str(), lookup)?)
        }
        ModelSpec::Anthropic { model } => {
            Arc::new(AnthropicModel::from_lookup(model.as_str(), lookup)?)
        }
        #[cfg(feature = "local")]
        ModelSpec::Local { model } => Arc::new(match model {
            crate::LocalModel::Path(path) => crate::local::LocalModel::open(path)?,
            crate::LocalModel::Known(name) => crate::local::LocalModel::open_known(name)?,
        }),
        #[cfg(not(feature = "local"))]
        ModelSpec::Local { .. } => {
            return Err(LlmError::Config(format!(
            "{spec}: the local provider needs the `local` feature, which this build does not have"
        )))
        }
        ModelSpec::Scripted => Arc::new(ScriptedModel::new([])),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> ModelSpec {
        text.parse().unwrap()
    }

    #[test]
    fn every_provider_is_built_or_explained() {
        let none = |_: &str| None;
        assert_eq!(
            from_spec_in(&spec("scripted"), none).unwrap().name(),
            "scripted"
        );
        assert_eq!(
            from_spec_in(&spec("ollama:qwen2.5-coder:1.5b"), none)
                .unwrap()
                .name(),
            "ollama:qwen2.5-coder:1.5b"
        );
        #[cfg(not(feature = "local"))]
        {
            let error = from_spec_in(&spec("local:qwen2.5-coder-0.5b"), none)
                .err()
                .unwrap()
                .to_string();
            assert!(
                error.contains("the local provider needs the `local` feature"),
                "{error}"
            );
        }
        #[cfg(feature = "local")]
        {
            let error = from_spec_in(&spec("local:/nonexistent/model.gguf"), none)
                .err()
                .unwrap()
                .to_string();
            assert!(error.contains("scripts/fetch-model"), "{error}");
        }
        let error = from_spec_in(&spec("openai:gpt-4o-mini"), none)
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("OPENAI_API_KEY"), "{error}");
        let error = from_spec_in(&spec("anthropic:claude-sonnet-4"), none)
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("ANTHROPIC_API_KEY"), "{error}");
        let key = |name: &str| (name == "OPENAI_API_KEY").then(|| "k".to_string());
        assert_eq!(
            from_spec_in(&spec("openai:gpt-4o-mini"), key)
                .unwrap()
                .name(),
            "openai:gpt-4o-mini"
        );
    }
}
