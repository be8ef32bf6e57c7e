//! Routing values: the [`Route`] a router or a node's `goto` answers, and the
//! [`PathMap`] that declares where a conditional edge may lead.

use std::borrow::Cow;

/// Where to go next: one or several targets (node names or [`crate::END`]),
/// with an optional reason that is reported in the `route_chosen` event.
///
/// ```
/// use rebound_graph::Route;
/// let route = Route::to("planner").because("the step failed");
/// assert_eq!(route.targets().collect::<Vec<_>>(), ["planner"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    targets: Targets,
    reason: Option<Cow<'static, str>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Targets {
    One(Cow<'static, str>),
    Many(Vec<Cow<'static, str>>),
}

impl Route {
    /// A route to one target (a path-map key, a node name, or END).
    pub fn to(target: impl Into<Cow<'static, str>>) -> Self {
        Route {
            targets: Targets::One(target.into()),
            reason: None,
        }
    }

    /// A route to several targets, which run in parallel in the next superstep.
    pub fn to_all<I, T>(targets: I) -> Self
    where
        I: IntoIterator<Item = T>,
        T: Into<Cow<'static, str>>,
    {
        Route {
            targets: Targets::Many(targets.into_iter().map(Into::into).collect()),
            reason: None,
        }
    }

    /// A route to [`crate::END`].
    pub fn end() -> Self {
        Route::to(crate::END)
    }

    /// Attaches the reason for the choice.
    #[must_use]
    pub fn because(mut self, reason: impl Into<Cow<'static, str>>) -> Self {
        self.reason = Some(reason.into());
        self
    }

    /// The chosen targets.
    pub fn targets(&self) -> impl Iterator<Item = &str> {
        let slice: &[Cow<'static, str>] = match &self.targets {
            Targets::One(one) => std::slice::from_ref(one),
            Targets::Many(many) => many,
        };
        slice.iter().map(|t| t.as_ref())
    }

    /// The reason, if the router gave one.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    pub(crate) fn into_reason(self) -> Option<Cow<'static, str>> {
        self.reason
    }
}

impl From<&'static str> for Route {
    fn from(target: &'static str) -> Self {
        Route::to(target)
    }
}

impl From<String> for Route {
    fn from(target: String) -> Self {
        Route::to(target)
    }
}

impl From<Vec<&'static str>> for Route {
    fn from(targets: Vec<&'static str>) -> Self {
        Route::to_all(targets)
    }
}

impl From<Vec<String>> for Route {
    fn from(targets: Vec<String>) -> Self {
        Route::to_all(targets)
    }
}

/// The declared targets of a conditional edge: a map from the router's
/// answers to node names (or END), and an optional fallback for any other
/// answer. Without a fallback, an undeclared answer is a
/// [`crate::GraphError::UnknownRoute`].
///
/// ```
/// use rebound_graph::{PathMap, END};
/// // The router answers node names directly:
/// let same: PathMap = ["executor", "planner", END].into();
/// // The router answers keys that are mapped to nodes, anything else ends:
/// let mapped = PathMap::new().route("retry", "planner").route("done", END).fallback(END);
/// # let _ = (same, mapped);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathMap {
    pub(crate) entries: Vec<(String, String)>,
    pub(crate) fallback: Option<String>,
}

impl PathMap {
    /// An empty map; add entries with [`PathMap::route`].
    pub fn new() -> Self {
        PathMap::default()
    }

    /// Maps the router answer `key` to `target`.
    #[must_use]
    pub fn route(mut self, key: impl Into<String>, target: impl Into<String>) -> Self {
        self.entries.push((key.into(), target.into()));
        self
    }

    /// Declares the target for any answer not in the map.
    #[must_use]
    pub fn fallback(mut self, target: impl Into<String>) -> Self {
        self.fallback = Some(target.into());
        self
    }
}

impl<const N: usize> From<[&str; N]> for PathMap {
    fn from(targets: [&str; N]) -> Self {
        targets.as_slice().into()
    }
}

impl From<&[&str]> for PathMap {
    fn from(targets: &[&str]) -> Self {
        PathMap {
            entries: targets
                .iter()
                .map(|t| (t.to_string(), t.to_string()))
                .collect(),
            fallback: None,
        }
    }
}

impl From<Vec<&str>> for PathMap {
    fn from(targets: Vec<&str>) -> Self {
        targets.as_slice().into()
    }
}
