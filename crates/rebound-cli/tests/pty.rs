//! Approvals on a terminal, driven through a pseudo-terminal: the run
//! pauses, shows the command and the reason, and asks. (The expected
//! strings are ASCII: rexpect reads the terminal byte by byte.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use common::{plan, review, FakeModel, TestEnv};
use rexpect::process::WaitStatus;
use rexpect::session::spawn_command;

/// `rebound <args>` in the workspace, for a pseudo-terminal.
fn command(env: &TestEnv, model: &FakeModel, args: &[&str]) -> Command {
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("rebound"));
    command
        .args(args)
        .current_dir(env.ws())
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("TERM", "xterm")
        .envs(env.vars(Some(model)));
    command
}

fn asking_env() -> TestEnv {
    let env = TestEnv::new();
    env.workspace_config(
        "[[rules]]\npattern = \"touch\"\naction = \"ask\"\nreason = \"touch writes files\"\n",
    );
    env
}

#[test]
fn the_terminal_prompt_approves_and_the_run_finishes() {
    let env = asking_env();
    let model = FakeModel::start(vec![
        plan(&[("Mark it", Some("touch approved.txt"))]),
        review("finish", "marked"),
    ]);
    let run = command(&env, &model, &["run", "mark it", "--model", "openai:test"]);
    let mut session = spawn_command(run, Some(60_000)).unwrap();
    session.exp_string("step 1/1: Mark it").unwrap();
    session
        .exp_string("approval needed: the agent wants to run")
        .unwrap();
    session.exp_string("$ touch approved.txt").unwrap();
    session.exp_string("touch writes files").unwrap();
    session
        .exp_string("[a]pprove, approve [A]ll, [d]eny?")
        .unwrap();
    session.send_line("a").unwrap();
    session.exp_string("approved").unwrap();
    session.exp_string(" finished (unverified)\r\n").unwrap();
    session.exp_string("thread").unwrap();
    session.exp_eof().unwrap();
    match session.process().wait().unwrap() {
        WaitStatus::Exited(_, code) => assert_eq!(code, 4, "an unverified finish"),
        other => panic!("{other:?}"),
    }
    assert!(env.ws().join("approved.txt").exists());
    assert_eq!(model.remaining(), 0);
}

#[test]
fn the_terminal_prompt_denies_with_a_message() {
    let env = asking_env();
    let model = FakeModel::start(vec![
        plan(&[("Mark it", Some("touch denied.txt"))]),
        plan(&[("List instead", Some("ls"))]),
        review("finish", "listed"),
    ]);
    let run = command(&env, &model, &["run", "mark it", "--model", "openai:test"]);
    let mut session = spawn_command(run, Some(60_000)).unwrap();
    session
        .exp_string("[a]pprove, approve [A]ll, [d]eny?")
        .unwrap();
    session.send_line("what?").unwrap();
    session.exp_string("type a (approve)").unwrap();
    session.send_line("d").unwrap();
    session.exp_string("message for the agent").unwrap();
    session.send_line("no files please").unwrap();
    session.exp_string("denied: no files please").unwrap();
    session.exp_string("repair plan").unwrap();
    session.exp_string(" finished (unverified)\r\n").unwrap();
    session.exp_eof().unwrap();
    match session.process().wait().unwrap() {
        WaitStatus::Exited(_, code) => assert_eq!(code, 4, "an unverified finish"),
        other => panic!("{other:?}"),
    }
    assert!(!env.ws().join("denied.txt").exists());
}

/// On a terminal, an untrusted workspace file that asks for more than it
/// may have is shown, setting by setting, and the user is asked; a yes
/// trusts it (the next run does not ask) and its settings count.
#[test]
fn the_terminal_asks_to_trust_a_loosening_workspace_file() {
    let env = TestEnv::new();
    env.workspace_config("approval = \"auto\"\n");
    let model = FakeModel::start(vec![
        plan(&[("Mark it", Some("touch marked.txt"))]),
        review("finish", "marked"),
        plan(&[("Look", Some("ls"))]),
        review("finish", "looked"),
    ]);
    let run = command(&env, &model, &["run", "mark it", "--model", "openai:test"]);
    let mut session = spawn_command(run, Some(60_000)).unwrap();
    session
        .exp_string("asks for settings an untrusted workspace cannot have")
        .unwrap();
    session
        .exp_string("approval = \"auto\": looser than on-risk")
        .unwrap();
    session.exp_string("Trust this file?").unwrap();
    session.send_line("y").unwrap();
    session.exp_string(" finished (unverified)\r\n").unwrap();
    session.exp_eof().unwrap();
    assert!(env.ws().join("marked.txt").exists());

    let again = command(&env, &model, &["run", "look", "--model", "openai:test"]);
    let mut session = spawn_command(again, Some(60_000)).unwrap();
    let before = session.exp_string(" finished (unverified)\r\n").unwrap();
    assert!(
        !before.contains("Trust this file?"),
        "asked again: {before}"
    );
    session.exp_eof().unwrap();
}
