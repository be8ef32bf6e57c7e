//! Connecting: bounded retries while the database is down, pools for
//! queries and for held threads, and error text that never shows the
//! URL's password.

use std::str::FromStr;
use std::time::Duration;

use rebound_graph::checkpoint::CheckpointError;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{Connection, PgConnection, PgPool};

use super::options::PostgresOptions;
use crate::error::PostgresError;

/// The secrets of a connection URL, to remove from any text shown.
#[derive(Debug, Clone, Default)]
pub(crate) struct Secrets {
    secrets: Vec<String>,
}

impl Secrets {
    /// The password of `url` (in the user info or a `password=` parameter),
    /// as written and percent-decoded.
    pub(crate) fn of(url: &str) -> Self {
        let mut secrets = Vec::new();
        if let Some(raw) = userinfo_password(url) {
            secrets.push(raw.to_string());
        }
        if let Some((_, query)) = url.split_once('?') {
            for pair in query.split('&') {
                if let Some(value) = pair.strip_prefix("password=") {
                    secrets.push(value.to_string());
                }
            }
        }
        let decoded: Vec<String> = secrets.iter().filter_map(|s| percent_decode(s)).collect();
        secrets.extend(decoded);
        secrets.retain(|s| !s.is_empty());
        // Longest first, so that a secret containing another is removed whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Secrets { secrets }
    }

    /// `text` with every secret replaced by `***`.
    pub(crate) fn scrub(&self, text: &str) -> String {
        self.secrets
            .iter()
            .fold(text.to_string(), |text, secret| text.replace(secret, "***"))
    }
}

/// The password in `scheme://user:password@host/...`, as written.
fn userinfo_password(url: &str) -> Option<&str> {
    let rest = &url[url.find("://")? + 3..];
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let userinfo = &authority[..authority.rfind('@')?];
    userinfo.split_once(':').map(|(_, password)| password)
}

fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return None;
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The URL as shown in errors: its password (in the user info, and any
/// `password=` parameter) replaced by `***`, the rest as written.
pub(crate) fn redact(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let mut out = match userinfo_password(base) {
        // The password is a slice of `base`: keep what surrounds it.
        Some(password) => {
            let start = password.as_ptr() as usize - base.as_ptr() as usize;
            format!("{}***{}", &base[..start], &base[start + password.len()..])
        }
        None => base.to_string(),
    };
    if let Some(query) = query {
        let pairs: Vec<&str> = query
            .split('&')
            .map(|pair| {
                if pair.starts_with("password=") {
                    "password=***"
                } else {
                    pair
                }
            })
            .collect();
        out.push('?');
        out.push_str(&pairs.join("&"));
    }
    out
}

/// Where `options` point, for errors: `postgres://host:port/database`.
pub(crate) fn location_of(options: &PgConnectOptions) -> String {
    format!(
        "postgres://{}:{}/{}",
        options.get_host(),
        options.get_port(),
        options.get_database().unwrap_or_default()
    )
}

/// A pooled connection idle this long is checked (`ping`) before use.
const PING_AFTER_IDLE: Duration = Duration::from_secs(1);

/// Whether a failed connection attempt may succeed later: the server is
/// down, starting, or full, or the attempt timed out.
fn retryable(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut => true,
        sqlx::Error::Database(db) => matches!(
            db.code().as_deref(),
            // cannot_connect_now (starting up), too_many_connections
            Some("57P03" | "53300")
        ),
        _ => false,
    }
}

/// Connects once to check that the database is reachable, retrying with
/// backoff as configured, then builds the pool (lazily: it opens
/// connections as they are needed).
pub(crate) async fn connect_pool(
    url: &str,
    options: &PostgresOptions,
) -> Result<PgPool, CheckpointError> {
    let secrets = Secrets::of(url);
    let location = redact(url);
    let failed = |attempts: u32, reason: String| -> CheckpointError {
        PostgresError::Connect {
            location: location.clone(),
            attempts,
            reason: secrets.scrub(&reason),
        }
        .into()
    };
    let mut connect_options =
        PgConnectOptions::from_str(url).map_err(|e| failed(0, format!("invalid URL: {e}")))?;
    if let Some(timeout) = options.idle_in_transaction_timeout() {
        // At least 1 ms: 0 would turn the limit off.
        let ms = timeout.as_millis().max(1);
        connect_options =
            connect_options.options([("idle_in_transaction_session_timeout", format!("{ms}ms"))]);
    }
    let attempts = options.connect_retries().saturating_add(1);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let error = match tokio::time::timeout(
            options.connect_timeout(),
            PgConnection::connect_with(&connect_options),
        )
        .await
        {
            Ok(Ok(conn)) => {
                // Only a reachability check: the pools open their own.
                let _ = conn.close().await;
                break;
            }
            Ok(Err(error)) if retryable(&error) => error.to_string(),
            Ok(Err(error)) => return Err(failed(attempt, error.to_string())),
            Err(_) => format!(
                "no connection within {:?} (connect timeout)",
                options.connect_timeout()
            ),
        };
        if attempt >= attempts {
            return Err(failed(attempt, error));
        }
        tokio::time::sleep(options.backoff(attempt)).await;
    }
    Ok(PgPoolOptions::new()
        .max_connections(options.max_connections())
        .acquire_timeout(options.connect_timeout())
        // sqlx pings every idle connection it hands out by default: a round
        // trip per put. Ping only those idle long enough to have been
        // dropped by the server or the network.
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for >= PING_AFTER_IDLE {
                    conn.ping().await?;
                }
                Ok(true)
            })
        })
        .connect_lazy_with(connect_options))
}

/// The pool of connections that hold threads (one per held thread), on the
/// database of `pool`. A connection handed back to it gives up every
/// advisory lock first, so that a run whose release never came (its future
/// was dropped) cannot leave a lock on an idle connection.
pub(crate) fn lock_pool(pool: &PgPool, options: &PostgresOptions) -> PgPool {
    let connect_options = (*pool.connect_options())
        .clone()
        .application_name(&format!("rebound pid {}", std::process::id()));
    PgPoolOptions::new()
        .max_connections(options.lock_connections())
        .acquire_timeout(options.connect_timeout())
        .after_release(|conn, _| {
            Box::pin(async move {
                sqlx::query("SELECT pg_advisory_unlock_all()")
                    .execute(&mut *conn)
                    .await?;
                Ok(true)
            })
        })
        .connect_lazy_with(connect_options)
}

#[cfg(test)]
mod tests {
    use super::{redact, Secrets};

    #[test]
    fn passwords_are_redacted_and_scrubbed() {
        assert_eq!(
            redact("postgres://u:s3cret@h:5432/db"),
            "postgres://u:***@h:5432/db"
        );
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
        // A password equal to the user name hides the password only.
        assert_eq!(
            redact("postgres://rebound:rebound@h/db?sslmode=disable"),
            "postgres://rebound:***@h/db?sslmode=disable"
        );
        assert_eq!(
            redact("postgres://h/db?user=u&password=pw1"),
            "postgres://h/db?user=u&password=***"
        );
        let secrets = Secrets::of("postgres://u:a%40b@h/db");
        assert_eq!(secrets.scrub("x a@b y a%40b"), "x *** y ***");
    }
}
