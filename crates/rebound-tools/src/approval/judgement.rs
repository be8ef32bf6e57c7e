//! A judgement of part of a command line, before the mode has its say.

use super::RuleAction;

/// What the policy makes of part of a line, as the `on-risk` mode sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Judgement {
    pub(super) action: RuleAction,
    pub(super) reason: String,
}

impl Judgement {
    pub(super) fn allow(reason: impl Into<String>) -> Self {
        Judgement {
            action: RuleAction::Allow,
            reason: reason.into(),
        }
    }

    pub(super) fn ask(reason: impl Into<String>) -> Self {
        Judgement {
            action: RuleAction::Ask,
            reason: reason.into(),
        }
    }

    pub(super) fn forbid(reason: impl Into<String>) -> Self {
        Judgement {
            action: RuleAction::Forbid,
            reason: reason.into(),
        }
    }

    pub(super) fn is_forbidden(&self) -> bool {
        self.action == RuleAction::Forbid
    }

    /// The stricter of the two; the first when they are as strict.
    pub(super) fn max(self, other: Judgement) -> Judgement {
        if other.action > self.action {
            other
        } else {
            self
        }
    }

    /// The stricter of the two, when there is another.
    pub(super) fn max_with(self, other: Option<Judgement>) -> Judgement {
        match other {
            Some(other) => self.max(other),
            None => self,
        }
    }
}
