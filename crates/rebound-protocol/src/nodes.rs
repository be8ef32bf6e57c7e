//! The node names of rebound's workflows: what their graphs are built
//! with and what a display matches a node event against.

/// Plan → execute → review → advance (design note 1).
pub mod pev {
    /// Makes or repairs the plan.
    pub const PLANNER: &str = "planner";
    /// Executes one step.
    pub const EXECUTOR: &str = "executor";
    /// Judges a step's result.
    pub const REVIEWER: &str = "reviewer";
    /// Updates the counters and the plan position.
    pub const ADVANCE: &str = "advance";
}

/// Plan → execute → reflect → commit (design note 3).
pub mod reflect {
    /// Initialises the workspace (a git work tree) and the task.
    pub const SETUP: &str = "setup";
    /// Makes or repairs the plan.
    pub const PLANNER: &str = "planner";
    /// Executes one step.
    pub const EXECUTOR: &str = "executor";
    /// Judges a step: proceed, refine or rollback.
    pub const REFLECTOR: &str = "reflector";
    /// Commits an accepted step.
    pub const COMMIT: &str = "commit";
    /// Restores the last commit before a replan.
    pub const ROLLBACK: &str = "rollback";
}

/// The supervisor with a human in the loop (design note 4).
pub mod supervisor {
    /// Routes to the next agent.
    pub const COORDINATOR: &str = "coordinator";
    /// Advises on courses.
    pub const COURSE_ADVISOR: &str = "course_advisor";
    /// Plans the learning.
    pub const LEARNING_PLANNER: &str = "learning_planner";
    /// Asks the human.
    pub const HUMAN_INPUT: &str = "human_input";
}
