//! Typed state: the [`State`] trait that `#[derive(State)]` implements, the
//! per-field merge rules and the [`FieldSet`] bit set naming fields.

use serde::de::DeserializeOwned;
use serde::Serialize;

/// How writes to one field are merged into the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MergeRule {
    /// The written value replaces the old one (the default). Two nodes writing
    /// the same replace-field in one superstep is a conflict error.
    Replace,
    /// The written items are appended to the old collection (`Extend`).
    Append,
    /// A user function `fn(&mut T, T)` combines the old value and the write.
    Custom,
}

/// A set of fields of a [`State`], by position (at most 64 fields).
/// Serialized as its bits (a number).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct FieldSet(u64);

impl FieldSet {
    /// The empty set.
    pub const EMPTY: FieldSet = FieldSet(0);

    /// A set from its raw bits (bit `i` is field `i`).
    pub const fn from_bits(bits: u64) -> Self {
        FieldSet(bits)
    }

    /// The raw bits.
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// The set holding field `index` only.
    pub const fn single(index: usize) -> Self {
        FieldSet(1u64 << index)
    }

    /// Adds field `index`.
    pub fn insert(&mut self, index: usize) {
        self.0 |= 1u64 << index;
    }

    /// Whether field `index` is in the set.
    pub const fn contains(self, index: usize) -> bool {
        self.0 & (1u64 << index) != 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set is empty (for `skip_serializing_if`, which passes a reference).
    #[doc(hidden)]
    pub const fn is_empty_ref(&self) -> bool {
        self.0 == 0
    }

    /// The number of fields in the set.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Fields in both sets.
    pub const fn intersection(self, other: FieldSet) -> FieldSet {
        FieldSet(self.0 & other.0)
    }

    /// Fields in either set.
    pub const fn union(self, other: FieldSet) -> FieldSet {
        FieldSet(self.0 | other.0)
    }

    /// The field positions in the set, in ascending order.
    pub fn indices(self) -> impl Iterator<Item = usize> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let index = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(index)
        })
    }

    /// The names of the fields in the set, given the state's field table.
    pub fn names(self, fields: &'static [&'static str]) -> impl Iterator<Item = &'static str> {
        self.indices().filter_map(move |i| fields.get(i).copied())
    }
}

/// A graph's state: a user struct whose fields are the channels nodes write.
///
/// Implement it with `#[derive(State)]`, which also generates the matching
/// update type (`<Name>Update`): every field as an `Option`, with a builder
/// method per field. Field attributes choose the merge rule:
///
/// ```
/// use rebound_graph::State;
/// use serde::{Deserialize, Serialize};
///
/// fn keep_max(old: &mut u32, new: u32) {
///     *old = (*old).max(new);
/// }
///
/// #[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
/// struct Chat {
///     /// Replaced by each write (the default).
///     topic: String,
///     /// Writes are appended.
///     #[state(append)]
///     messages: Vec<String>,
///     /// Writes are combined by a function.
///     #[state(merge = keep_max)]
///     best_score: u32,
/// }
///
/// let mut chat = Chat::default();
/// let update = ChatUpdate::default().messages(vec!["hi".into()]).best_score(3);
/// let changed = chat.apply(update);
/// assert_eq!(changed.names(Chat::FIELDS).collect::<Vec<_>>(), ["messages", "best_score"]);
/// ```
pub trait State: Clone + Send + Sync + Serialize + DeserializeOwned + 'static {
    /// The partial update a node returns: only the fields it names are written.
    type Update: Default + Send + Sync + Serialize + DeserializeOwned + 'static;

    /// Field names, in declaration order; positions index [`FieldSet`]s.
    const FIELDS: &'static [&'static str];

    /// The merge rule of each field, in the order of [`State::FIELDS`].
    const MERGE_RULES: &'static [MergeRule];

    /// The fields an update writes.
    fn written(update: &Self::Update) -> FieldSet;

    /// Merges an update into the state and returns the fields it wrote.
    fn apply(&mut self, update: Self::Update) -> FieldSet;

    /// The fields an update overwrites: their values replace the old ones,
    /// bypassing the fields' merge rules (`overwrite_<field>` on a derived
    /// update). None by default.
    fn overwritten(update: &Self::Update) -> FieldSet {
        let _ = update;
        FieldSet::EMPTY
    }

    /// The update that turns `before` into `after`: for each field whose
    /// value differs, a write of its new value — for an append field whose
    /// old items are a prefix of the new ones, only the items added; for
    /// any other change of an append or merge field, an overwrite (which
    /// the update type must support: derived ones do). What a subgraph of
    /// the same state hands back to its parent.
    ///
    /// Fields are compared as JSON values. An error says which field could
    /// not be encoded or written.
    fn changes(before: &Self, after: &Self) -> Result<Self::Update, String> {
        crate::changes::changes(before, after)
    }

    /// The fields whose merge rule is [`MergeRule::Replace`].
    fn replace_fields() -> FieldSet {
        let mut set = FieldSet::EMPTY;
        for (i, rule) in Self::MERGE_RULES.iter().enumerate() {
            if *rule == MergeRule::Replace {
                set.insert(i);
            }
        }
        set
    }
}
