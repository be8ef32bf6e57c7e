//! Routing values: the [`Route`] a router or a node's `goto` answers, and the
//! [`PathMap`] that declares where a conditional edge may lead.

use std::borrow::Cow;

use crate::Send;

/// Where to go next: one or several targets (node names or [`crate::END`]),
/// tasks with payloads of their own ([`Send`]), or both, with an optional
/// reason that is reported in the `route_chosen` event.
///
/// ```
/// use rebound_graph::{Route, Send};
/// let route = Route::to("planner").because("the step failed");
/// assert_eq!(route.targets().collect::<Vec<_>>(), ["planner"]);
///
/// // Fan out: one task of "summarize" per document, and "audit" once.
/// let fan_out = Route::to("audit")
///     .with_send(Send::new("summarize", "a.txt"))
///     .with_send(Send::new("summarize", "b.txt"));
/// assert_eq!(fan_out.send_items().len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    targets: Targets,
    reason: Option<Cow<'static, str>>,
}

/// A route's targets, and its sends behind a box: a route that does not
/// send is as small as it was before sends existed (it is moved around
/// with every node's output).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Targets {
    One(Cow<'static, str>),
    Many(Vec<Cow<'static, str>>),
    Sending(Box<Sending>),
}

impl Targets {
    /// The same targets, as those of a route that sends.
    fn into_sending(self) -> Box<Sending> {
        match self {
            Targets::One(one) => Box::new(Sending {
                targets: vec![one],
                sends: Vec::new(),
            }),
            Targets::Many(many) => Box::new(Sending {
                targets: many,
                sends: Vec::new(),
            }),
            Targets::Sending(sending) => sending,
        }
    }
}

/// The targets and the sends of a route that sends.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Sending {
    targets: Vec<Cow<'static, str>>,
    sends: Vec<Send>,
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

    /// A route with one task of `node`, which receives `arg` as its payload
    /// (and no other target).
    pub fn send(node: impl Into<Cow<'static, str>>, arg: impl Into<serde_json::Value>) -> Self {
        Route::sends([Send::new(node, arg)])
    }

    /// A route with a task per [`Send`], in this order (and no other
    /// target): map-reduce's fan-out.
    pub fn sends(sends: impl IntoIterator<Item = Send>) -> Self {
        Route {
            targets: Targets::Sending(Box::new(Sending {
                targets: Vec::new(),
                sends: sends.into_iter().collect(),
            })),
            reason: None,
        }
    }

    /// Adds a task of a [`Send`] after the route's other sends.
    #[must_use]
    pub fn with_send(mut self, send: Send) -> Self {
        let mut sending = self.targets.into_sending();
        sending.sends.push(send);
        self.targets = Targets::Sending(sending);
        self
    }

    /// Adds tasks of [`Send`]s after the route's other sends.
    #[must_use]
    pub fn with_sends(mut self, sends: impl IntoIterator<Item = Send>) -> Self {
        let mut sending = self.targets.into_sending();
        sending.sends.extend(sends);
        self.targets = Targets::Sending(sending);
        self
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
            Targets::Sending(sending) => &sending.targets,
        };
        slice.iter().map(|t| t.as_ref())
    }

    /// The tasks sent, in emission order.
    pub fn send_items(&self) -> &[Send] {
        match &self.targets {
            Targets::Sending(sending) => &sending.sends,
            Targets::One(_) | Targets::Many(_) => &[],
        }
    }

    /// Takes the sends out of the route (`None` for a route that never sent).
    pub(crate) fn take_sends(&mut self) -> Option<Vec<Send>> {
        match &mut self.targets {
            Targets::Sending(sending) => Some(std::mem::take(&mut sending.sends)),
            Targets::One(_) | Targets::Many(_) => None,
        }
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

impl From<Send> for Route {
    fn from(send: Send) -> Self {
        Route::sends([send])
    }
}

impl From<Vec<Send>> for Route {
    fn from(sends: Vec<Send>) -> Self {
        Route::sends(sends)
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
