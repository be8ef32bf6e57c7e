//! The web view in a real headless Chromium, driven over WebDriver
//! (chromedriver): a thread stopped at a command approval is opened, the
//! approval card shows the command, Approve resumes the run, and the page
//! follows it to the end; on a server with a token, the page asks for it,
//! starts a run from its form, denies, and forks from the history. Needs `chromium` and `chromium-driver`
//! (`scripts/install-browser`); skips without them unless
//! `REBOUND_REQUIRE_BROWSER=1`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::JsonAnswer;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rebound_server::Server;
use serde_json::{json, Value};

use webdriver::Browser;

/// The Chromium that Debian's `chromium` package installs.
const CHROMIUM: &str = "/usr/bin/chromium";
/// How long the test waits for the page to show something.
const PAGE_WAIT: Duration = Duration::from_secs(20);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approving_a_command_in_the_web_view_resumes_the_run() {
    let Some(chromedriver) = browser_or_skip() else {
        return;
    };
    let started = Instant::now();
    let (base, _dir) = start_server(None).await;

    // A thread whose run waits at the approval, before the page opens.
    let api = reqwest::Client::builder().no_proxy().build().unwrap();
    let thread: Value = api
        .post(format!("{base}/threads"))
        .json(&json!({}))
        .json_answer()
        .await;
    let thread_id = thread["thread_id"].as_str().unwrap().to_string();
    let waited: Value = api
        .post(format!("{base}/threads/{thread_id}/runs/wait"))
        .json(&json!({
            "assistant_id": "approval",
            "input": {"goal": "say hi"},
            "stream_mode": ["values", "updates", "events"],
        }))
        .json_answer()
        .await;
    assert_eq!(
        waited["__interrupt__"][0]["value"]["command"], "echo hi",
        "the run stops at the approval: {waited}"
    );

    let browser = Arc::new(Browser::start(&chromedriver, CHROMIUM).await);
    let driven = tokio::spawn(approve_in_page(
        Arc::clone(&browser),
        base.clone(),
        thread_id.clone(),
    ))
    .await;
    browser.quit().await;
    if let Err(error) = driven {
        std::panic::resume_unwind(error.into_panic());
    }

    let state: Value = api
        .get(format!("{base}/threads/{thread_id}/state"))
        .json_answer()
        .await;
    assert_eq!(
        state["values"]["answer"],
        json!({"decision": "approve"}),
        "{state}"
    );
    assert_eq!(
        state["values"]["log"],
        json!(["plan", "run_command", "report"]),
        "{state}"
    );
    println!("web view test took {:.1?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_token_the_page_asks_for_it_then_starts_denies_and_forks() {
    let Some(chromedriver) = browser_or_skip() else {
        return;
    };
    let (base, _dir) = start_server(Some(TOKEN)).await;
    let browser = Arc::new(Browser::start(&chromedriver, CHROMIUM).await);
    let driven = tokio::spawn(deny_and_fork_in_page(Arc::clone(&browser), base.clone())).await;
    browser.quit().await;
    let thread_id = match driven {
        Ok(thread_id) => thread_id,
        Err(error) => std::panic::resume_unwind(error.into_panic()),
    };

    let api = reqwest::Client::builder().no_proxy().build().unwrap();
    let state: Value = api
        .get(format!("{base}/threads/{thread_id}/state"))
        .bearer_auth(TOKEN)
        .json_answer()
        .await;
    // The fork went back to before the denial: it waits at the approval again.
    assert_eq!(state["next"], json!(["run_command"]), "{state}");
    assert_eq!(state["values"]["answer"], Value::Null, "{state}");
    let history: Value = api
        .post(format!("{base}/threads/{thread_id}/history"))
        .bearer_auth(TOKEN)
        .json(&json!({"limit": 50}))
        .json_answer()
        .await;
    let denied = history
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["values"]["answer"] == json!({"decision": "deny", "message": "not now"}));
    assert!(denied, "the denial is in the history: {history}");
}

/// The token the second test's server wants.
const TOKEN: &str = "s3cret-token";

/// A server of the `approval` graph on a free loopback port: its base URL,
/// and the directory of its database.
async fn start_server(token: Option<&str>) -> (String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::builder()
        .database(dir.path().join("state.db"))
        .graph("approval", common::approval_request_graph())
        .token(token.map(str::to_string))
        .workers(2)
        .build()
        .unwrap();
    (common::serve_on_loopback(server).await, dir)
}

/// Gives the page the token, starts a run from the form, denies its
/// command, forks from the checkpoint before the denial; the thread's id.
async fn deny_and_fork_in_page(browser: Arc<Browser>, base: String) -> String {
    browser.goto(&format!("{base}/")).await;
    browser
        .wait_until("the token prompt", "!q('#auth').hidden")
        .await;
    browser.type_into("#token", TOKEN).await;
    browser.click("#token-save").await;
    browser
        .wait_until(
            "the assistants and the thread list",
            "q('#assistant').value === 'approval' && text('#threads') === 'no threads yet'",
        )
        .await;

    browser.type_into("#goal", r#"{"goal": "deploy"}"#).await;
    browser.click("#start").await;
    browser
        .wait_until(
            "the new thread, selected, at the approval",
            "q('.thread.selected') && !q('#approval').hidden && text('#approval-command') === 'echo hi'",
        )
        .await;
    let thread_id = browser
        .script("return document.querySelector('.thread.selected').dataset.threadId;")
        .await
        .as_str()
        .unwrap()
        .to_string();
    let status = format!(".thread[data-thread-id=\"{thread_id}\"] .status");

    browser.type_into("#deny-message", "not now").await;
    browser.click("#deny").await;
    browser
        .wait_until(
            "the denied run finished, the thread idle",
            &format!(
                "text({status:?}) === 'idle' && text('#run-log').includes('the command was denied') \
                 && document.querySelectorAll('#history .checkpoint').length === 3"
            ),
        )
        .await;

    // Fork from step 1: after the plan, before the approval.
    let checkpoint = browser
        .script(
            "return [...document.querySelectorAll('#history .checkpoint')]\
             .find(row => row.querySelector('.step').textContent === 'step 1').dataset.checkpointId;",
        )
        .await;
    let checkpoint = checkpoint.as_str().unwrap();
    browser
        .click(&format!(
            ".checkpoint[data-checkpoint-id=\"{checkpoint}\"] .fork"
        ))
        .await;
    browser
        .wait_until(
            "the fork at the approval again",
            &format!("text({status:?}) === 'interrupted' && !q('#approval').hidden"),
        )
        .await;
    browser.screenshot("web-view-fork.png").await;
    thread_id
}

/// Opens the page, answers the approval with Approve and follows the run.
async fn approve_in_page(browser: Arc<Browser>, base: String, thread_id: String) {
    browser.goto(&format!("{base}/")).await;
    let thread = format!(".thread[data-thread-id=\"{thread_id}\"]");
    browser
        .wait_until("the thread in the list", &format!("!!q({thread:?})"))
        .await;
    assert_eq!(
        browser.text(&format!("{thread} .status")).await,
        "interrupted"
    );
    browser.click(&thread).await;

    browser
        .wait_until(
            "the approval card with the command",
            "!q('#approval').hidden && text('#approval-command') === 'echo hi'",
        )
        .await;
    assert_eq!(browser.text("#approval-cwd").await, "/tmp");
    assert_eq!(browser.text("#approval-reason").await, "test");
    assert_eq!(browser.text("#approval-tool").await, "shell");
    browser
        .wait_until("the plan", "text('#plan-steps').includes('echo hi')")
        .await;
    browser
        .wait_until(
            "the history",
            "document.querySelectorAll('#history .checkpoint').length > 1",
        )
        .await;
    browser.screenshot("web-view-approval.png").await;

    browser.click("#approve").await;
    browser
        .wait_until(
            "the thread idle and the resumed run finished",
            &format!(
                "text({:?}) === 'idle' && q('#approval').hidden \
                 && [...document.querySelectorAll('#run-log .run-finished')].some(l => l.dataset.status === 'completed')",
                format!("{thread} .status"),
            ),
        )
        .await;
    let log = browser.text("#run-log").await;
    for wanted in ["$ echo hi", "the command was approved", "report"] {
        assert!(log.contains(wanted), "the run log shows {wanted:?}:\n{log}");
    }
    assert_eq!(
        browser.text("#run-log .run:last-child .tail").await,
        "hi",
        "the command's output tail:\n{log}"
    );
    browser.screenshot("web-view.png").await;
}

/// chromedriver's path, or `None` (after saying why) when the browser is
/// not installed and not required.
fn browser_or_skip() -> Option<PathBuf> {
    let chromedriver = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("chromedriver"))
            .find(|path| path.is_file())
    });
    match chromedriver {
        Some(path) if Path::new(CHROMIUM).is_file() => Some(path),
        _ if std::env::var("REBOUND_REQUIRE_BROWSER").as_deref() == Ok("1") => {
            panic!("{CHROMIUM} or chromedriver is missing (REBOUND_REQUIRE_BROWSER=1): run scripts/install-browser")
        }
        _ => {
            println!("skipped: run scripts/install-browser");
            None
        }
    }
}

/// Where the screenshots go: `$CARGO_TARGET_DIR`, else the workspace's
/// `target/`.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"))
}

/// Just enough of the W3C WebDriver protocol to drive the page: a session,
/// navigation, clicks, scripts and screenshots.
mod webdriver {
    use std::path::{Path, PathBuf};
    use std::process::Stdio;
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

    use base64::Engine;
    use serde_json::{json, Value};
    use tokio::process::{Child, Command};

    use super::common::JsonAnswer;
    use super::{target_dir, PAGE_WAIT};

    /// The key of an element reference in WebDriver's JSON.
    const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";
    /// Helpers every waited-for condition can use.
    const PRELUDE: &str = "const q = (s) => document.querySelector(s); \
        const text = (s) => (q(s) ? q(s).textContent.trim() : null);";

    /// How often a page script is sent again after its request failed on
    /// the way (a dropped connection), before the test gives up.
    const SCRIPT_ATTEMPTS: usize = 3;

    /// Why a WebDriver command has no value.
    #[derive(Debug)]
    enum Failure {
        /// The request got no answer (what is known of why).
        OnTheWay(String),
        /// chromedriver answered with an error.
        Driver(Value),
    }

    impl std::fmt::Display for Failure {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self {
                Failure::OnTheWay(text) => f.write_str(text),
                Failure::Driver(value) => write!(f, "{value}"),
            }
        }
    }

    /// A headless Chromium session; chromedriver is killed when dropped.
    pub struct Browser {
        client: reqwest::Client,
        session: String,
        driver: Mutex<Child>,
        /// chromedriver's own log, shown when a command fails on the way.
        log: PathBuf,
        _profile: tempfile::TempDir,
    }

    impl Browser {
        /// Starts chromedriver on a free port and a headless session.
        pub async fn start(chromedriver: &Path, chromium: &str) -> Browser {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let profile = tempfile::tempdir().unwrap();
            let log = profile.path().join("chromedriver.log");
            let driver = Command::new(chromedriver)
                .arg(format!("--port={port}"))
                .arg(format!("--log-path={}", log.display()))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .kill_on_drop(true)
                .spawn()
                .unwrap_or_else(|e| panic!("starting {}: {e}", chromedriver.display()));
            // A new connection per command: a kept-alive connection that
            // chromedriver has closed is never reused.
            let client = reqwest::Client::builder()
                .no_proxy()
                .pool_max_idle_per_host(0)
                .build()
                .unwrap();
            let root = format!("http://127.0.0.1:{port}");
            let deadline = Instant::now() + PAGE_WAIT;
            loop {
                let status = client.get(format!("{root}/status")).send().await;
                if let Ok(response) = status {
                    let body: Value = response.json().await.unwrap_or_default();
                    if body["value"]["ready"] == true {
                        break;
                    }
                }
                assert!(
                    Instant::now() < deadline,
                    "chromedriver did not start on port {port}"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            let args = [
                "--headless=new".to_string(),
                "--no-sandbox".to_string(),
                "--disable-gpu".to_string(),
                "--disable-dev-shm-usage".to_string(),
                "--disable-quic".to_string(),
                "--no-first-run".to_string(),
                "--disable-background-networking".to_string(),
                "--disable-component-update".to_string(),
                "--disable-sync".to_string(),
                "--window-size=1280,1200".to_string(),
                format!("--user-data-dir={}", profile.path().display()),
            ];
            let capabilities = json!({"capabilities": {"alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {"binary": chromium, "args": args},
            }}});
            let response: Value = client
                .post(format!("{root}/session"))
                .json(&capabilities)
                .json_answer()
                .await;
            let Some(id) = response["value"]["sessionId"].as_str() else {
                panic!("chromedriver started no session: {response}");
            };
            Browser {
                client,
                session: format!("{root}/session/{id}"),
                driver: Mutex::new(driver),
                log,
                _profile: profile,
            }
        }

        /// A WebDriver command's `value`, or its error. A request that
        /// failed on the way is described with its causes, chromedriver's
        /// state and the end of its log.
        async fn command(&self, post: Option<Value>, path: &str) -> Result<Value, Failure> {
            let url = format!("{}{path}", self.session);
            let request = match post {
                Some(body) => self.client.post(url).json(&body),
                None => self.client.get(url),
            };
            let response = match request.send().await {
                Ok(response) => response,
                Err(error) => return Err(Failure::OnTheWay(self.transport_failure(&error))),
            };
            let ok = response.status().is_success();
            let body: Value = match response.json().await {
                Ok(body) => body,
                Err(error) => return Err(Failure::OnTheWay(self.transport_failure(&error))),
            };
            if ok {
                Ok(body["value"].clone())
            } else {
                Err(Failure::Driver(body["value"].clone()))
            }
        }

        /// What is known of a request that got no answer: the error and
        /// its causes, whether chromedriver still runs, its log's end.
        fn transport_failure(&self, error: &reqwest::Error) -> String {
            let mut text = error.to_string();
            let mut source = std::error::Error::source(error);
            while let Some(cause) = source {
                text.push_str(&format!(": {cause}"));
                source = cause.source();
            }
            let state = match self.driver.lock().map(|mut d| d.try_wait()) {
                Ok(Ok(Some(status))) => format!("chromedriver exited ({status})"),
                Ok(Ok(None)) => "chromedriver still runs".to_string(),
                _ => "chromedriver's state unknown".to_string(),
            };
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            let lines: Vec<&str> = log.lines().collect();
            let tail = lines[lines.len().saturating_sub(30)..].join("\n");
            format!("{text}\n{state}; the end of its log:\n{tail}")
        }

        /// Runs `script` (a function body) in the page; what it returns.
        /// Scripts only read the page, so one whose request failed on the
        /// way is sent again, a few times, before the test fails.
        pub async fn script(&self, script: &str) -> Value {
            let body = json!({"script": script, "args": []});
            let mut attempt = 1;
            loop {
                match self.command(Some(body.clone()), "/execute/sync").await {
                    Ok(value) => return value,
                    Err(Failure::OnTheWay(failure)) if attempt < SCRIPT_ATTEMPTS => {
                        eprintln!("page script attempt {attempt} got no answer: {failure}");
                        attempt += 1;
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    }
                    Err(error) => panic!("running {script:?} in the page: {error}"),
                }
            }
        }

        /// Loads `url`.
        pub async fn goto(&self, url: &str) {
            self.command(Some(json!({ "url": url })), "/url")
                .await
                .unwrap_or_else(|e| panic!("opening {url}: {e}"));
        }

        /// The page's visible text, for failure messages.
        pub async fn page_text(&self) -> String {
            let text = self.script("return document.body.innerText;").await;
            text.as_str().unwrap_or_default().to_string()
        }

        /// The trimmed text of the first element matching `css`.
        pub async fn text(&self, css: &str) -> String {
            let value = self
                .script(&format!("{PRELUDE} return text({css:?});"))
                .await;
            match value.as_str() {
                Some(text) => text.to_string(),
                None => panic!(
                    "no element {css:?} on the page:\n{}",
                    self.page_text().await
                ),
            }
        }

        /// Waits until `condition` (JavaScript, with `q` and `text`) holds.
        pub async fn wait_until(&self, what: &str, condition: &str) {
            let script = format!("{PRELUDE} return Boolean({condition});");
            let deadline = Instant::now() + PAGE_WAIT;
            while self.script(&script).await != true {
                if Instant::now() > deadline {
                    panic!(
                        "waited {PAGE_WAIT:?} for {what} ({condition}); the page shows:\n{}",
                        self.page_text().await
                    );
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }

        /// Clicks the first element matching `css`, as a user would.
        pub async fn click(&self, css: &str) {
            let element = self.element(css).await;
            if let Err(error) = self
                .command(Some(json!({})), &format!("/element/{element}/click"))
                .await
            {
                panic!("clicking {css:?}: {error}\n{}", self.page_text().await);
            }
        }

        /// The WebDriver reference of the first element matching `css`.
        async fn element(&self, css: &str) -> String {
            let found = self
                .command(
                    Some(json!({"using": "css selector", "value": css})),
                    "/element",
                )
                .await;
            match found {
                Ok(element) => element[ELEMENT_KEY]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                Err(error) => panic!("no element {css:?} ({error}):\n{}", self.page_text().await),
            }
        }

        /// Types `text` into the first element matching `css`.
        pub async fn type_into(&self, css: &str, text: &str) {
            let element = self.element(css).await;
            if let Err(error) = self
                .command(
                    Some(json!({ "text": text })),
                    &format!("/element/{element}/value"),
                )
                .await
            {
                panic!("typing into {css:?}: {error}\n{}", self.page_text().await);
            }
        }

        /// Saves a screenshot of the window to `name` in the target
        /// directory and prints its path.
        pub async fn screenshot(&self, name: &str) {
            let encoded = self
                .command(None, "/screenshot")
                .await
                .unwrap_or_else(|e| panic!("taking a screenshot: {e}"));
            let png = base64::engine::general_purpose::STANDARD
                .decode(encoded.as_str().unwrap_or_default())
                .unwrap();
            let path = target_dir().join(name);
            std::fs::create_dir_all(target_dir()).unwrap();
            std::fs::write(&path, png).unwrap();
            println!("screenshot: {}", path.display());
        }

        /// Ends the session, which closes Chromium.
        pub async fn quit(&self) {
            let _ = self.client.delete(&self.session).send().await;
        }
    }
}
