//! [`checkpointer_tests!`]: one `#[tokio::test]` per scenario for a backend,
//! and the one list of scenarios it and [`SCENARIOS`] are made from.

/// Calls `$crate::$callback!` with `$args` followed by the list of
/// scenarios, `module: [name, ...],` per scenario module: the one place a
/// scenario is registered.
#[doc(hidden)]
#[macro_export]
macro_rules! __with_scenarios {
    ($callback:ident; $($args:tt)*) => {
        $crate::$callback! {
            $($args)*
        checkpoints: [
            one_checkpoint_per_superstep_plus_the_input_newest_first,
            a_finished_thread_has_empty_next_and_latest_equals_by_id,
            a_second_run_on_a_thread_follows_its_latest_checkpoint,
            states_rebuilt_from_deltas_equal_the_live_states_at_every_checkpoint,
            a_delta_does_not_grow_with_the_message_list,
            stored_bytes_per_step_stay_flat_as_the_message_list_grows,
            history_filters_by_before_and_limit,
            batched_durability_gives_the_same_checkpoints_and_state_as_sync,
            batched_error_commits_the_completed_supersteps_and_resume_works,
            sync_error_leaves_the_same_as_batched,
            batched_cancellation_still_commits_the_completed_supersteps,
            a_resumed_run_of_s_supersteps_passes_with_limit_s,
            a_resumed_dynamic_interrupt_counts_its_superstep_once,
            a_run_of_s_supersteps_ending_at_an_interrupt_before_passes_with_limit_s,
            input_resume_on_a_thread_interrupted_before_runs_from_the_input_checkpoint,
            metadata_records_durations_and_ids_record_time,
            the_saver_lists_threads_most_recent_first,
            checkpoint_ids_increase_along_a_thread_when_the_clock_went_back,
        ],
        errors: [
            a_checkpointer_without_a_thread_id_is_an_error,
            resuming_an_unknown_thread_is_nothing_to_resume,
            resuming_a_finished_thread_is_nothing_to_resume,
            resume_with_a_value_when_no_dynamic_interrupt_waits_is_nothing_to_resume,
            a_checkpoint_id_the_thread_lacks_is_unknown_checkpoint,
            a_snapshot_with_a_wrongly_typed_nested_field_is_bad_stored_state,
            a_bad_delta_names_the_delta_checkpoint_and_the_field,
            bad_metadata_is_bad_stored_state,
            one_run_per_thread_at_a_time,
            a_failed_run_releases_its_thread,
            a_conflicting_superstep_persists_nothing,
        ],
        interrupts: [
            interrupt_before_stops_before_the_node_and_resume_runs_it,
            interrupt_after_stops_after_the_node_and_resume_continues,
            interrupt_after_the_last_node_does_not_stop_a_finished_run,
            per_run_interrupt_before_applies_to_that_run_only,
            an_unknown_node_in_a_per_run_interrupt_is_an_error,
            invoke_on_an_interrupting_graph_is_an_interrupted_error,
            a_dynamic_interrupt_returns_its_payload_and_resume_with_answers_it,
            a_node_that_interrupts_twice_gets_each_answer_in_order,
            a_resume_value_of_the_wrong_type_is_a_permanent_node_error,
            a_rejected_resume_value_can_be_replaced_with_a_good_one,
            a_finished_sibling_of_an_interrupted_node_is_not_run_again,
            a_finished_siblings_goto_survives_the_interrupt,
            a_static_interrupt_before_a_node_that_then_interrupts_dynamically,
            an_interrupted_streams_events_end_with_interrupted_then_run_finished,
            stream_result_of_an_interrupted_run_is_an_interrupted_error,
            a_join_half_done_before_an_interrupt_completes_after_resume,
            a_star_interrupts_at_every_node,
        ],
        journal: [
            a_journaled_file_write_is_not_repeated_after_an_interrupt,
            a_journaled_call_is_not_repeated_when_the_node_failed_after_it,
            a_journaled_call_survives_a_run_dropped_mid_node,
            the_same_key_twice_in_one_node_is_two_entries_both_replayed,
            a_retry_within_a_run_runs_the_call_again_and_the_latest_result_replays,
            batched_durability_commits_the_checkpoint_a_journal_entry_belongs_to,
            a_journaled_call_that_failed_is_tried_again_on_resume,
        ],
        pending: [
            an_update_keeps_the_waiting_interrupt_its_answers_and_the_journal,
            an_update_as_the_interrupted_node_completes_the_superstep_with_the_sibling,
            two_updates_in_a_row_keep_the_writes,
            a_replay_before_an_interrupt_can_be_resumed_on_its_new_head,
            an_interrupted_head_resumes_by_id_after_the_thread_moved_on,
            a_value_for_a_checkpoint_where_nothing_waits_is_refused,
            an_update_as_an_earlier_node_routes_anew_and_asks_again,
            one_answer_per_interrupt_by_id,
            an_unknown_interrupt_id_is_refused,
            interrupt_ids_survive_an_update,
            a_resume_command_answers_updates_and_goes_to_in_one_checkpoint,
            a_bad_resume_command_is_refused_and_writes_nothing,
            a_partial_input_is_merged_into_the_threads_state,
            a_merged_input_is_stored_as_its_change,
            an_update_as_end_ends_and_a_copy_forks_beside,
        ],
        time_travel: [
            update_state_as_a_node_forks_a_checkpoint_routed_from_that_node,
            update_state_without_a_node_keeps_the_next_nodes,
            update_state_with_an_unknown_node_is_an_error,
            replay_from_a_past_checkpoint_runs_the_later_nodes_again_on_a_new_branch,
            replay_from_the_final_checkpoint_has_nothing_to_resume,
            a_fork_of_a_past_checkpoint_then_resume_follows_the_fork,
        ],
        forks: [
            a_copy_of_the_checkpoint_before_a_question_asks_it_again,
            an_update_of_the_checkpoint_before_a_question_asks_it_again,
            a_fork_between_two_questions_asks_only_the_second_again,
            a_command_without_answers_at_a_past_checkpoint_asks_again,
            a_fork_of_the_past_keeps_its_journal_and_finished_siblings_not_its_answers,
            the_head_by_id_keeps_its_answers_and_once_moved_on_from_does_not,
        ],
        reopen: [
            a_reopened_store_reads_back_everything_written,
            an_interrupted_thread_resumes_on_a_reopened_store_without_repeating_its_effect,
        ],
        send: [
            a_sent_task_that_interrupts_stops_the_superstep_and_resumes_alone,
            two_sent_tasks_of_one_node_interrupting_are_answered_by_id,
            a_failed_send_superstep_is_resumed_by_a_new_graph_with_the_same_tasks,
            interrupt_before_a_sent_node_stops_once_and_resume_runs_every_task,
            interrupt_after_a_sent_node_stops_once_after_all_its_tasks,
            update_state_without_as_node_keeps_the_sends_due,
            update_state_as_the_last_waiting_node_completes_the_superstep_with_the_sends,
            a_replay_from_a_checkpoint_with_sends_runs_the_same_tasks_again,
            a_resume_commands_goto_replaces_the_sends_due,
            a_finished_siblings_goto_sends_survive_the_interrupt,
        ],
        }
    };
}

/// Expands to one `#[tokio::test]` per scenario of the suite, run on the
/// backend that `$backend` builds, grouped in one module per scenario module
/// (so a failure reads `checkpoints::history_filters_by_before_and_limit` in
/// the test binary of the store).
///
/// `$backend` is evaluated once per scenario, inside a module nested in the
/// one the macro is called from (items of the calling module are in scope),
/// and must be a `Result<B, E>` where `B: `[`Backend`](crate::Backend) and
/// `E: Display` (usually [`Unavailable`](crate::Unavailable)): an `Err`
/// prints `skipped: <reason>` and passes. The calling crate needs `tokio`
/// with the `macros` and `rt` features.
///
/// ```ignore
/// use rebound_conformance::{MemoryBackend, Unavailable};
///
/// fn memory() -> Result<MemoryBackend, Unavailable> {
///     Ok(MemoryBackend)
/// }
///
/// rebound_conformance::checkpointer_tests!(memory());
/// ```
#[macro_export]
macro_rules! checkpointer_tests {
    ($backend:expr) => {
        $crate::__with_scenarios! { __scenario_tests; $backend; }
    };
}

/// The expansion of [`checkpointer_tests!`]; not for direct use.
#[doc(hidden)]
#[macro_export]
macro_rules! __scenario_tests {
    ($backend:expr; $($module:ident: [$($scenario:ident),* $(,)?],)*) => {
        $(
            mod $module {
                #[allow(unused_imports)]
                use super::*;

                $(
                    #[tokio::test]
                    async fn $scenario() {
                        match $backend {
                            ::std::result::Result::Ok(backend) => {
                                $crate::scenarios::$module::$scenario(&backend).await
                            }
                            ::std::result::Result::Err(reason) => {
                                ::std::println!("skipped: {}", reason);
                            }
                        }
                    }
                )*
            }
        )*
    };
}

/// The names of [`checkpointer_tests!`]'s list as `module::name` strings.
#[doc(hidden)]
#[macro_export]
macro_rules! __scenario_names {
    ($($module:ident: [$($scenario:ident),* $(,)?],)*) => {
        &[$($(::std::concat!(::std::stringify!($module), "::", ::std::stringify!($scenario)),)*)*]
    };
}

/// Every scenario of the suite as `module::name`, in the order
/// [`checkpointer_tests!`] declares them.
pub const SCENARIOS: &[&str] = crate::__with_scenarios! { __scenario_names; };
