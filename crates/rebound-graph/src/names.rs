//! The reserved node names: the virtual entry and exit, and "every node".
//! A leaf of the engine: everything may name them, they name nothing.

/// The name of the virtual entry node: edges from it choose the first node(s).
pub const START: &str = "__start__";

/// The name of the virtual exit node: a branch routed here stops.
pub const END: &str = "__end__";

/// In `interrupt_before`/`interrupt_after` (of a graph or a run): every node.
pub const ALL_NODES: &str = "*";
