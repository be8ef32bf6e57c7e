//! A run's evidence as its state keeps it: the checks and what they last
//! said. One field of each workflow's state, so that pev and reflect read
//! and update it the same way.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{all_passed, guard, verify, Check, CheckResult, CheckRun, CheckSource, CheckWhen};
use crate::{CheckReport, StopReason};

/// Plans in which the planner is asked for a check, when the run has none,
/// before the run goes on without one.
pub const CHECK_PROPOSALS: u32 = 2;

/// The checks and their last results.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The goal's evidence: commands whose success means it is reached.
    pub checks: Vec<Check>,
    /// Their last results.
    pub results: Vec<CheckResult>,
    /// The workspace's fingerprint when they last ran (`None`: not yet).
    pub fingerprint: Option<u64>,
    /// The workspace's fingerprint when they ran before the first plan
    /// (`None`: not yet, or state from before it was kept): a finish on
    /// the same fingerprint changed nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_fingerprint: Option<u64>,
    /// A check that is not a condition ([`CheckSource::is_condition`])
    /// failed before the first plan: the checks tell done from not done. A condition
    /// that failed then (a file's shape, a commit subject on an amend)
    /// does not count: it never settles a goal, so it cannot make the
    /// checks that passed from the start evidence either.
    pub failed_at_start: bool,
    /// The files the checks read (tests, scripts a check names) and their
    /// content hashes when the checks first ran.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub guarded: BTreeMap<String, u64>,
    /// Guarded files that had changed when the checks last ran: passing
    /// checks then prove nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tests_changed: Vec<String>,
    /// Checks the planner proposed (adopted or refused), for a run that had
    /// none.
    #[serde(default)]
    pub proposals: u32,
    /// Plans that ended with every check passing, none of them able to
    /// settle the goal, and whose review did not finish: at the next such
    /// end the run finishes (unverified) instead of planning again.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub passing_reviews: u32,
    /// Workspace programs the goal names (`./stats prints the mean`): what
    /// the goal says they do is evidence only a check that runs them can
    /// give ([`Evidence::uncovered`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub named_programs: Vec<String>,
    /// The goal's words about the code's structure ("extract them into one
    /// function", "instead of repeating the code"): tests show behaviour,
    /// not structure, so no detected check covers them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structure: Option<String>,
    /// The new values the goal asks for ("the currency should be USD
    /// instead of EUR"): shown set only by a check that looks for them
    /// ([`super::values`], [`Evidence::uncovered`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub new_values: Vec<String>,
    /// The workspace's content ([`crate::unchanged::mark`]) when the run's
    /// first plan was made (`None`: not yet, or state from before it was
    /// kept). A check the planner proposes must fail on the workspace as
    /// the run found it: once the workspace has changed, a check that
    /// fails now may fail only because of the change (found on dev: a
    /// proposal that *passes* while the wrong line is printed was adopted
    /// after an edit had removed that line, and judged every later edit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found: Option<u64>,
    /// The checks' last run passed every check, and the run before it
    /// failed one: the step that ran between them made them pass.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flipped: bool,
}

impl Evidence {
    /// Evidence of `checks`, not run yet.
    pub fn new(checks: Vec<Check>) -> Self {
        Evidence {
            checks,
            ..Evidence::default()
        }
    }

    /// Evidence of `checks` for `goal`, not run yet: the programs the goal
    /// names are kept, to tell what the checks do not cover.
    pub fn for_goal(goal: &str, checks: Vec<Check>) -> Self {
        Evidence {
            named_programs: super::named_programs(goal),
            structure: super::clauses::structure_clause(goal),
            new_values: super::values::new_values(goal),
            ..Evidence::new(checks)
        }
    }

    /// The programs the goal names that no check runs (and the code's
    /// structure, and the new values no check looks for), when no check is
    /// the user's own definition of done (`--check`, the configuration):
    /// checks found in the goal's words or in the workspace (`make`) pass
    /// without showing what the goal says such a program does (prints the
    /// right mean), so they cannot verify a finish.
    pub fn uncovered(&self) -> Vec<String> {
        let users_definition = self
            .checks
            .iter()
            .any(|c| matches!(c.source, CheckSource::Flag | CheckSource::Config { .. }));
        if users_definition {
            return Vec::new();
        }
        self.named_programs
            .iter()
            .filter(|program| {
                // A condition that runs it (it exits 0 and prints
                // something) does not show what it prints.
                !self
                    .checks
                    .iter()
                    .any(|c| !c.source.is_condition() && super::runs_program(&c.command, program))
            })
            .cloned()
            .chain(
                self.structure
                    .iter()
                    .map(|s| format!("the code's structure (\"{s}\")")),
            )
            .chain(
                self.new_values
                    .iter()
                    .filter(|value| {
                        // Only a check that looks for the value shows it set.
                        !self
                            .checks
                            .iter()
                            .any(|c| !c.source.is_condition() && c.command.contains(value.as_str()))
                    })
                    .map(|value| format!("the value \"{value}\" the goal asks for")),
            )
            .collect()
    }

    /// This evidence after `run`.
    pub fn after(&self, run: &CheckRun) -> Evidence {
        let guarded = if self.fingerprint.is_none() {
            run.guarded.clone()
        } else {
            self.guarded.clone()
        };
        // Before the first plan: a quoted command that named something
        // missing is the run's to define, a condition from now on.
        let checks = if run.when == CheckWhen::Start {
            super::defined::demote(&self.checks, &run.results)
        } else {
            self.checks.clone()
        };
        Evidence {
            results: run.results.clone(),
            fingerprint: Some(run.fingerprint),
            start_fingerprint: if run.when == CheckWhen::Start {
                Some(run.fingerprint)
            } else {
                self.start_fingerprint
            },
            failed_at_start: if run.when == CheckWhen::Start {
                run.results.iter().any(|result| {
                    !result.passed
                        && checks
                            .iter()
                            .any(|c| c.command == result.command && !c.source.is_condition())
                })
            } else {
                self.failed_at_start
            },
            tests_changed: guard::changed(&guarded, &run.guarded),
            guarded,
            proposals: self.proposals,
            passing_reviews: self.passing_reviews,
            named_programs: self.named_programs.clone(),
            structure: self.structure.clone(),
            new_values: self.new_values.clone(),
            found: self.found,
            flipped: run.passed() && !self.results.is_empty() && !all_passed(&self.results),
            checks,
        }
    }

    /// Whether the planner is asked to propose a check with its plan: the
    /// run has none that can show the goal reached — only the goal's
    /// conditions at most, or checks that all passed before any change
    /// (`make` builds the program whose output is wrong), or none that
    /// runs a program the goal names — none of its own yet, and has not
    /// asked [`CHECK_PROPOSALS`] times.
    pub fn wants_proposal(&self) -> bool {
        let ran_at_start = self.fingerprint.is_some();
        let no_evidence = self.checks.iter().all(|c| c.source.is_weak())
            || (ran_at_start && !self.failed_at_start)
            || !self.uncovered().is_empty();
        no_evidence
            && !self.checks.iter().any(|c| c.source == CheckSource::Agent)
            && !self.has_correction()
            && self.proposals < CHECK_PROPOSALS
    }

    /// Whether the goal's correction of a program's output is a check
    /// ([`super::corrected`]): the goal gave the value the program must
    /// print, which is what a proposed check would look for; asking for
    /// one costs the planner's first call a hundred tokens or more (found
    /// on dev: the proposals of such goals were long grep chains, all
    /// refused).
    fn has_correction(&self) -> bool {
        self.checks.iter().any(|c| {
            matches!(&c.source, CheckSource::Clause { rule, .. } if rule == super::corrected::RULE_CORRECTED)
        })
    }

    /// Whether some check can settle the goal: one that is not weak
    /// ([`CheckSource::is_weak`]), and no agent-written one (an
    /// agent-written check is necessary, not sufficient).
    fn can_settle(&self) -> bool {
        self.checks.iter().any(|c| !c.source.is_weak())
            && !self.checks.iter().any(|c| c.source == CheckSource::Agent)
    }

    /// Whether `run` proves the goal without asking a model: every check
    /// passes, one failed before the first plan, none is the agent's own
    /// (an agent-written check is necessary, not sufficient), no file the
    /// checks read has changed, and they run every program the goal names.
    pub fn settles(&self, run: &CheckRun) -> bool {
        run.passed()
            && self.failed_at_start
            && self.can_settle()
            && guard::changed(&self.guarded, &run.guarded).is_empty()
            && self.uncovered().is_empty()
    }

    /// [`Evidence::settles`] for the last results kept: every check
    /// passed when they last ran, one failed before the first plan, none
    /// is the agent's own, no file the checks read had changed, and they
    /// run every program the goal names.
    pub fn settled(&self) -> bool {
        self.fingerprint.is_some()
            && !self.results.is_empty()
            && all_passed(&self.results)
            && self.failed_at_start
            && self.can_settle()
            && self.tests_changed.is_empty()
            && self.uncovered().is_empty()
    }

    /// Whether the workspace is as it was when the checks first ran, every
    /// check that can fail for the goal passed then, and none is the
    /// user's whole definition of done (`--check`, the configuration): the
    /// goal's checks passing now say nothing of the run's work, for there
    /// is none. Found on dev: a goal to cherry-pick a commit said its
    /// tests should pass afterwards; they passed on the branch as it was,
    /// and a finish with no change at all was verified by them.
    pub fn unchanged_since_passing_start(&self) -> bool {
        !self.failed_at_start
            && self.start_fingerprint.is_some()
            && self.start_fingerprint == self.fingerprint
            && !self
                .checks
                .iter()
                .any(|c| matches!(c.source, CheckSource::Flag | CheckSource::Config { .. }))
    }

    /// The stop reason of a run that ended on a finish: `Finished` when the
    /// checks verify it ([`verify()`]), `FinishedUnverified` when there are
    /// none, they only guard (detected, passing from the start), nothing
    /// changed since they all passed at the start, a file they read was
    /// changed, or the goal names a program none of them runs; an error
    /// when one fails (a finish that slipped past them).
    pub fn finish_reason(&self) -> StopReason {
        if self.checks.is_empty()
            || super::passed_but_sandboxed(&self.results)
            || (all_passed(&self.results) && self.unchanged_since_passing_start())
        {
            StopReason::FinishedUnverified
        } else if !all_passed(&self.results) {
            StopReason::Error {
                message: "the run ended on a finish that its checks do not confirm".to_string(),
            }
        } else if self.passing_reviews > 0 && !super::has_named(&self.checks) {
            // A review asked for more while these checks all passed: they
            // did not tell its "not yet" from done, so they cannot verify
            // a finish now (found on dev: an agent-written check passed,
            // the reviewer said the receipt was still wrong, and the
            // harness's finish after the next plan was claimed).
            StopReason::FinishedUnverified
        } else if self.tests_changed.is_empty()
            && self.uncovered().is_empty()
            && verify(&self.checks, &self.results, self.failed_at_start)
        {
            StopReason::Finished
        } else {
            StopReason::FinishedUnverified
        }
    }

    /// The checks for a run's summary.
    pub fn reports(&self) -> Vec<CheckReport> {
        CheckReport::of(&self.checks, &self.results)
    }
}

/// Whether `n` is zero (a counter left out of a checkpoint while unused).
fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(when: CheckWhen, command: &str, passed: bool) -> CheckRun {
        CheckRun {
            when,
            results: vec![CheckResult {
                command: command.to_string(),
                passed,
                exit_code: Some(if passed { 0 } else { 2 }),
                output: String::new(),
                duration_ms: 1,
            }],
            fingerprint: u64::from(passed),
            approved_all: false,
            guarded: BTreeMap::new(),
        }
    }

    fn detected(command: &str) -> Check {
        let reason = "Makefile".to_string();
        Check::new(command, CheckSource::Detected { reason })
    }

    #[test]
    fn a_condition_that_failed_at_start_does_not_make_a_passing_guard_evidence() {
        // Found in review: an amend goal's subject check (a condition)
        // failed at start, the detected "nothing uncommitted" check passed
        // from the start, and the two together verified a finish that a
        // new commit would have reached as well.
        let subject = "git log -1 --format=%s | grep -qx M";
        let clean = "git status --porcelain && test -z \"$(git status --porcelain)\"";
        let condition = Check::new(
            subject,
            CheckSource::Clause {
                rule: "prints".to_string(),
                proves: false,
            },
        );
        let evidence = Evidence::for_goal("Amend it.", vec![condition.clone(), detected(clean)]);
        let start = CheckRun {
            results: vec![
                run(CheckWhen::Start, subject, false).results.remove(0),
                run(CheckWhen::Start, clean, true).results.remove(0),
            ],
            ..run(CheckWhen::Start, subject, false)
        };
        let after = evidence.after(&start);
        assert!(!after.failed_at_start);
        let passing = CheckRun {
            when: CheckWhen::Finish,
            results: vec![
                run(CheckWhen::Finish, subject, true).results.remove(0),
                run(CheckWhen::Finish, clean, true).results.remove(0),
            ],
            ..run(CheckWhen::Finish, subject, true)
        };
        let done = after.after(&passing);
        assert!(!verify(&done.checks, &done.results, done.failed_at_start));
        // The same with a check that can settle it failing at start.
        let proving = Check::new(subject, CheckSource::Flag);
        let evidence = Evidence::for_goal("Amend it.", vec![proving, detected(clean)]);
        assert!(evidence.after(&start).failed_at_start);
    }

    #[test]
    fn a_finish_that_changed_nothing_since_its_checks_passed_is_unverified() {
        let tests = "python3 -m unittest";
        let evidence = Evidence::for_goal(
            "Cherry-pick it; `python3 -m unittest` should pass.",
            vec![Check::new(tests, CheckSource::Goal)],
        );
        let start = evidence.after(&run(CheckWhen::Start, tests, true));
        let finish = |fingerprint| CheckRun {
            fingerprint,
            ..run(CheckWhen::Finish, tests, true)
        };
        let unchanged = start.after(&finish(1));
        assert_eq!(unchanged.finish_reason(), StopReason::FinishedUnverified);
        let changed = start.after(&finish(7));
        assert_eq!(changed.finish_reason(), StopReason::Finished);
        // A check that failed at the start passing now is the run's work.
        let failing = evidence.after(&run(CheckWhen::Start, tests, false));
        let fixed = failing.after(&finish(0));
        assert_eq!(fixed.finish_reason(), StopReason::Finished);
        // `--check` is the user's whole definition of done.
        let flagged = Evidence::new(vec![Check::new(tests, CheckSource::Flag)]);
        let start = flagged.after(&run(CheckWhen::Start, tests, true));
        assert_eq!(
            start.after(&finish(1)).finish_reason(),
            StopReason::Finished
        );
    }

    #[test]
    fn checks_that_show_nothing_of_the_goal_ask_the_planner_for_one() {
        let goal = "The bars are too short: fix bars.c.";
        let evidence = Evidence::for_goal(goal, vec![detected("make")]);
        assert!(!evidence.wants_proposal(), "not run yet: may fail");
        let failing = evidence.after(&run(CheckWhen::Start, "make", false));
        assert!(
            !failing.wants_proposal(),
            "make fails for the goal's reason"
        );
        let passing = evidence.after(&run(CheckWhen::Start, "make", true));
        assert!(passing.wants_proposal(), "make passed before any change");

        // A named program no check runs: make's failure is not the goal's.
        let goal = "Fix it so that ./stats prints the correct mean.";
        let evidence = Evidence::for_goal(goal, vec![detected("make")]).after(&run(
            CheckWhen::Start,
            "make",
            false,
        ));
        assert!(evidence.wants_proposal());

        // Asked enough, or the run has its own check already.
        let asked = Evidence {
            proposals: CHECK_PROPOSALS,
            ..passing.clone()
        };
        assert!(!asked.wants_proposal());
        let mut own = passing.clone();
        own.checks
            .push(Check::new("./bars | grep -c '#'", CheckSource::Agent));
        assert!(!own.wants_proposal());
        // The goal gave the value the program must print.
        let mut corrected = passing;
        corrected.checks.push(Check::new(
            "./bars | grep -qE -e 'cherry: #'",
            CheckSource::Clause {
                rule: super::super::corrected::RULE_CORRECTED.to_string(),
                proves: false,
            },
        ));
        assert!(!corrected.wants_proposal());
    }

    #[test]
    fn a_goal_about_the_codes_structure_is_not_verified_by_its_tests() {
        let goal = "Extract the copied lines into one function, normalize(email), and call it instead of repeating the code.";
        let evidence = Evidence::for_goal(goal, vec![detected("python3 -m unittest")]).after(&run(
            CheckWhen::Start,
            "python3 -m unittest",
            false,
        ));
        let passing = run(CheckWhen::AfterChange, "python3 -m unittest", true);
        assert!(!evidence.settles(&passing), "tests show behaviour only");
        let evidence = evidence.after(&passing);
        assert_eq!(evidence.finish_reason(), StopReason::FinishedUnverified);
        assert_eq!(evidence.uncovered().len(), 1, "{:?}", evidence.uncovered());
    }

    #[test]
    fn an_agent_check_that_passed_through_a_review_asking_for_more_does_not_verify() {
        let goal = "Fix the receipt's amounts in main.go.";
        let check = "go run main.go | grep -qxF 'total: 40.04'";
        let agent = Check::new(check, CheckSource::Agent);
        let evidence = Evidence::for_goal(goal, vec![agent])
            .after(&run(CheckWhen::Start, check, false))
            .after(&run(CheckWhen::AfterChange, check, true));
        assert_eq!(evidence.finish_reason(), StopReason::Finished);
        let asked_more = Evidence {
            passing_reviews: 1,
            ..evidence
        };
        assert_eq!(asked_more.finish_reason(), StopReason::FinishedUnverified);
        let named = Check::new("go test ./...", CheckSource::Flag);
        let flagged = Evidence {
            checks: vec![named],
            ..asked_more
        };
        assert_eq!(
            flagged.finish_reason(),
            StopReason::Finished,
            "the user's own check still decides"
        );
    }

    #[test]
    fn a_new_value_no_check_looks_for_leaves_a_finish_unverified() {
        let goal = "`python3 report.py` exits with 'missing config.ini'. Create config.ini from config.example.ini, except that the currency should be USD instead of EUR.";
        let agent = Check::new("python3 report.py", CheckSource::Agent);
        let evidence = Evidence::for_goal(goal, vec![agent.clone()]).after(&run(
            CheckWhen::Start,
            "python3 report.py",
            false,
        ));
        assert_eq!(
            evidence.uncovered(),
            vec!["the value \"USD\" the goal asks for".to_string()]
        );
        let evidence = evidence.after(&run(CheckWhen::AfterChange, "python3 report.py", true));
        assert_eq!(
            evidence.finish_reason(),
            StopReason::FinishedUnverified,
            "the program runs; nothing shows the currency is USD"
        );
        let looking = Check::new("grep -q 'currency = USD' config.ini", CheckSource::Agent);
        assert!(Evidence::for_goal(goal, vec![agent, looking])
            .uncovered()
            .is_empty());
    }

    #[test]
    fn a_program_the_goal_names_and_no_check_runs_leaves_a_finish_unverified() {
        let goal = "Fix it so that it builds with make and ./stats prints the correct mean.";
        let evidence = Evidence::for_goal(goal, vec![detected("make")]);
        assert_eq!(evidence.uncovered(), vec!["./stats".to_string()]);
        let evidence = evidence.after(&run(CheckWhen::Start, "make", false));
        let passing = run(CheckWhen::AfterChange, "make", true);
        assert!(!evidence.settles(&passing), "make shows the build only");
        let evidence = evidence.after(&passing);
        assert!(!evidence.settled());
        assert_eq!(evidence.finish_reason(), StopReason::FinishedUnverified);

        // A check that runs the program covers it; so does a --check,
        // the user's own definition of done.
        let covering = Evidence::for_goal(goal, vec![detected("make && ./stats | grep 4.5")]);
        assert!(covering.uncovered().is_empty());
        let users = Evidence::for_goal(goal, vec![Check::new("make", CheckSource::Flag)]);
        assert!(users.uncovered().is_empty());
        let settled = users
            .after(&run(CheckWhen::Start, "make", false))
            .after(&passing);
        assert!(settled.settled());
        assert_eq!(settled.finish_reason(), StopReason::Finished);
    }
}
