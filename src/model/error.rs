//! Errors from the OpenAI-compatible model client, how each counts for the error policy
//! (ARCHITECTURE §4), and the `Retry-After` parser.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::ErrorClass;

/// How many characters of an error response body an [`ModelError::Http`] keeps.
pub const ERROR_BODY_CHARS: usize = 300;

/// Why a call to the model server failed. Every message says what the user can do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The server could not be reached. Holds `"<url>: <reason>"`.
    #[error("cannot reach the model server at {0} — is it running? check llm.base_url")]
    Connect(String),
    /// No first byte within the first-byte timeout, or no complete answer within the request
    /// timeout.
    #[error(
        "the model server did not answer within {after_ms} ms — it may be overloaded or still \
         loading the model; raise llm.timeout_secs or use a smaller model"
    )]
    Timeout { after_ms: u64 },
    /// The server answered with a non-success status.
    #[error("{}", http_message(*.status, *.retry_after_ms, .body))]
    Http {
        status: u16,
        /// From the `Retry-After` header, when the server sent one we could read.
        retry_after_ms: Option<u64>,
        /// The first [`ERROR_BODY_CHARS`] characters of the response body.
        body: String,
    },
    /// A streamed answer ended before the server said it was done (connection cut).
    #[error(
        "the model server closed the stream before the answer was complete (after {} characters) \
         — retrying usually helps",
        .partial.chars().count()
    )]
    StreamCut { partial: String },
    /// The server answered 2xx with something that is not a chat completion we can read.
    #[error(
        "the model server sent a response fathom cannot read: {0} — is llm.base_url an \
         OpenAI-compatible /v1 endpoint?"
    )]
    BadResponse(String),
    /// The answer had started, then nothing came for the idle timeout (keep-alive comments do
    /// not count: they say the connection lives, not that the answer moves).
    #[error(
        "the model server stopped sending the answer for {after_ms} ms (after {} characters) — \
         it may be stuck; raise llm.idle_timeout_secs if it is only slow",
        .partial.chars().count()
    )]
    Stalled { after_ms: u64, partial: String },
    /// The reply passed the size limit; fathom stopped reading instead of holding more.
    #[error(
        "the model server's reply is larger than {limit} bytes, so fathom stopped reading it — \
         a runaway generation? raise llm.max_reply_bytes if the answers really are that long"
    )]
    TooLarge { limit: usize },
    /// The caller gave up on the call.
    #[error("the model call was cancelled")]
    Cancelled,
}

fn http_message(status: u16, retry_after_ms: Option<u64>, body: &str) -> String {
    let detail = if body.trim().is_empty() {
        String::new()
    } else {
        format!(": {}", body.trim())
    };
    match status {
        401 | 403 => format!(
            "the model server refused fathom's credentials (HTTP {status}) — check the API key \
             and that it may use this model{detail}"
        ),
        404 => format!(
            "the model server has no such endpoint or model (HTTP 404) — check llm.base_url (it \
             usually ends in /v1) and llm.model (`fathom models` lists them){detail}"
        ),
        429 => {
            let wait = match retry_after_ms {
                Some(ms) => format!("; it asks to wait {:.1} s", ms as f64 / 1000.0),
                None => String::new(),
            };
            format!(
                "the model server is rate-limiting fathom (HTTP 429){wait} — wait and retry, or \
                 send fewer requests{detail}"
            )
        }
        300..=399 => format!(
            "the model server redirected the request (HTTP {status}{detail}) — fathom follows \
             redirects only within the same host and port, so prompts and keys never go \
             elsewhere; set llm.base_url to the final address"
        ),
        500..=599 => format!(
            "the model server failed (HTTP {status}) — it may be overloaded or restarting; \
             retrying usually helps{detail}"
        ),
        _ => format!("the model server rejected the request (HTTP {status}){detail}"),
    }
}

impl ModelError {
    /// How this error counts for the error policy and the circuit breaker.
    pub fn class(&self) -> ErrorClass {
        match self {
            ModelError::Connect(_) => ErrorClass::Recoverable,
            ModelError::Timeout { .. } => ErrorClass::Timeout,
            ModelError::Http { status, .. } => match *status {
                429 | 500..=599 => ErrorClass::Transient,
                // A redirect elsewhere will not go away on a retry: llm.base_url needs changing.
                300..=399 | 401 | 403 | 404 => ErrorClass::Critical,
                _ => ErrorClass::Recoverable,
            },
            ModelError::StreamCut { .. } => ErrorClass::Transient,
            // The idle timeout has already been waited out: fall back rather than wait again.
            ModelError::Stalled { .. } => ErrorClass::Timeout,
            ModelError::BadResponse(_) | ModelError::TooLarge { .. } => ErrorClass::Recoverable,
            // Nothing failed on the server's side: the caller chose to stop, so nothing to retry
            // and nothing for the breaker to hold against the backend.
            ModelError::Cancelled => ErrorClass::Warning,
        }
    }

    /// How long the server asked us to wait before retrying (`Retry-After`), if it said.
    pub fn retry_after_ms(&self) -> Option<u64> {
        match self {
            ModelError::Http { retry_after_ms, .. } => *retry_after_ms,
            _ => None,
        }
    }

    /// The same error with `secrets` (and any `Bearer` token or `authorization` value) replaced
    /// by `[redacted]` in every text that came from the server or the URL: servers echo keys
    /// into error bodies, and these texts reach the terminal and the log.
    pub fn redacted(self, secrets: &[String]) -> ModelError {
        let r = |s: String| match crate::redact::redact(&s, secrets) {
            std::borrow::Cow::Borrowed(_) => s,
            std::borrow::Cow::Owned(o) => o,
        };
        match self {
            ModelError::Connect(s) => ModelError::Connect(r(s)),
            ModelError::Http {
                status,
                retry_after_ms,
                body,
            } => ModelError::Http {
                status,
                retry_after_ms,
                body: r(body),
            },
            ModelError::StreamCut { partial } => ModelError::StreamCut {
                partial: r(partial),
            },
            ModelError::Stalled { after_ms, partial } => ModelError::Stalled {
                after_ms,
                partial: r(partial),
            },
            ModelError::BadResponse(s) => ModelError::BadResponse(r(s)),
            e @ (ModelError::Timeout { .. }
            | ModelError::TooLarge { .. }
            | ModelError::Cancelled) => e,
        }
    }

    /// Builds an [`ModelError::Http`], keeping only the start of the body.
    pub fn http(status: u16, retry_after_ms: Option<u64>, body: &str) -> ModelError {
        ModelError::Http {
            status,
            retry_after_ms,
            body: body.chars().take(ERROR_BODY_CHARS).collect(),
        }
    }
}

/// Parses a `Retry-After` header value: delta-seconds (`"2"`) or an IMF-fixdate HTTP-date
/// (`"Wed, 21 Oct 2015 07:28:00 GMT"`), measured from `now`. A date in the past means "now" (0).
/// Anything else gives `None`.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<u64> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Saturate rather than fail: a huge value still means "not soon".
        let secs = value.parse::<u64>().unwrap_or(u64::MAX);
        return Some(secs.saturating_mul(1000));
    }
    let at = parse_http_date(value)?;
    // A date at or before `now` means "now".
    Some(
        at.duration_since(now)
            .map(|d| d.as_millis().min(u128::from(u64::MAX)) as u64)
            .unwrap_or(0),
    )
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the only HTTP-date form servers
/// are required to send. The obsolete RFC 850 and asctime forms are not accepted.
pub fn parse_http_date(value: &str) -> Option<SystemTime> {
    let rest = value.trim();
    let (weekday, rest) = rest.split_once(", ")?;
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    if !DAYS.contains(&weekday) {
        return None;
    }
    let parts: Vec<&str> = rest.split(' ').collect();
    let [day, month, year, time, zone] = parts.as_slice() else {
        return None;
    };
    if *zone != "GMT" || day.len() != 2 || year.len() != 4 {
        return None;
    }
    // IMF-fixdate months are exactly three letters, capitalised.
    let month = match month.len() == 3 && month.starts_with(|c: char| c.is_ascii_uppercase()) {
        true => month_from_name(month)?,
        false => return None,
    };
    let day: u32 = digits(day)?;
    let year: i64 = digits::<i64>(year)?;
    let hms: Vec<&str> = time.split(':').collect();
    let [h, m, s] = hms.as_slice() else {
        return None;
    };
    if h.len() != 2 || m.len() != 2 || s.len() != 2 {
        return None;
    }
    let (h, m, s): (u64, u64, u64) = (digits(h)?, digits(m)?, digits(s)?);
    // 60 allows a leap second.
    if day == 0 || day > days_in_month(year, month) || h > 23 || m > 59 || s > 60 {
        return None;
    }
    // Signed: a date before 1970 is still a date (in the past, so "retry now").
    let secs = days_from_civil(year, month, day) * 86_400 + (h * 3600 + m * 60 + s) as i64;
    if secs >= 0 {
        UNIX_EPOCH.checked_add(Duration::from_secs(secs.unsigned_abs()))
    } else {
        UNIX_EPOCH.checked_sub(Duration::from_secs(secs.unsigned_abs()))
    }
}

use crate::calendar::{days_from_civil, days_in_month, month_from_name};

fn digits<T: std::str::FromStr>(s: &str) -> Option<T> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn http_dates_parse_to_the_right_instant() {
        // 2015-10-21T07:28:00Z
        assert_eq!(
            parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(at(1_445_412_480))
        );
        assert_eq!(
            parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(at(784_111_777))
        );
        assert_eq!(
            parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"),
            Some(at(0))
        );
        assert_eq!(
            parse_http_date("Tue, 29 Feb 2000 12:00:00 GMT"),
            Some(at(951_825_600))
        );
    }

    #[test]
    fn malformed_http_dates_are_rejected() {
        for bad in [
            "",
            "soon",
            "Wed, 21 Oct 2015 07:28:00 UTC",
            "Wed, 21 Foo 2015 07:28:00 GMT",
            "Wed, 31 Apr 2015 07:28:00 GMT",
            "Wed, 29 Feb 2015 07:28:00 GMT",
            "Wed, 21 Oct 2015 24:00:00 GMT",
            "Wed, 21 Oct 15 07:28:00 GMT",
            "Wednesday, 21-Oct-15 07:28:00 GMT",
            "Wed Oct 21 07:28:00 2015",
            "Wed, 21 Oct 2015 07:28 GMT",
            "Wed, +1 Oct 2015 07:28:00 GMT",
        ] {
            assert_eq!(parse_http_date(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn retry_after_takes_seconds_or_a_date() {
        let now = at(1_445_412_480);
        assert_eq!(parse_retry_after("2", now), Some(2000));
        assert_eq!(parse_retry_after(" 0 ", now), Some(0));
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now),
            Some(30_000)
        );
        // A date already past means "retry now".
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(0)
        );
        assert_eq!(parse_retry_after("-1", now), None);
        assert_eq!(parse_retry_after("1.5", now), None);
        assert_eq!(parse_retry_after("later", now), None);
        assert_eq!(
            parse_retry_after("99999999999999999999999", now),
            Some(u64::MAX)
        );
    }

    #[test]
    fn classes_follow_the_error_policy() {
        let http = |s| ModelError::http(s, None, "");
        assert_eq!(
            ModelError::Connect("x".into()).class(),
            ErrorClass::Recoverable
        );
        assert_eq!(
            ModelError::Timeout { after_ms: 1 }.class(),
            ErrorClass::Timeout
        );
        for s in [429, 500, 502, 503, 599] {
            assert_eq!(http(s).class(), ErrorClass::Transient, "{s}");
        }
        for s in [401, 403, 404] {
            assert_eq!(http(s).class(), ErrorClass::Critical, "{s}");
        }
        for s in [400, 408, 413, 422] {
            assert_eq!(http(s).class(), ErrorClass::Recoverable, "{s}");
        }
        assert_eq!(
            ModelError::StreamCut {
                partial: "ab".into()
            }
            .class(),
            ErrorClass::Transient
        );
        assert_eq!(
            ModelError::BadResponse("x".into()).class(),
            ErrorClass::Recoverable
        );
        assert_eq!(
            ModelError::TooLarge { limit: 1 }.class(),
            ErrorClass::Recoverable
        );
        assert_eq!(
            ModelError::Stalled {
                after_ms: 1,
                partial: String::new()
            }
            .class(),
            ErrorClass::Timeout
        );
        for s in [301, 302, 307, 308] {
            assert_eq!(http(s).class(), ErrorClass::Critical, "{s}");
        }
    }

    #[test]
    fn redaction_reaches_every_server_text() {
        let key = "sk-live-0123456789abcdef".to_string();
        let secrets = std::slice::from_ref(&key);
        let errors = [
            ModelError::Connect(format!("http://x/v1: refused {key}")),
            ModelError::http(401, None, &format!("Incorrect API key provided: {key}")),
            ModelError::StreamCut {
                partial: format!("echo {key}"),
            },
            ModelError::Stalled {
                after_ms: 5,
                partial: format!("echo {key}"),
            },
            ModelError::BadResponse(format!("the answer is not JSON: Bearer {key}")),
        ];
        for e in errors {
            let before = format!("{e:?}");
            assert!(before.contains(&key), "the test needs the key in {before}");
            let after = e.redacted(secrets);
            assert!(!after.to_string().contains(&key), "{after}");
            assert!(!format!("{after:?}").contains(&key), "{after:?}");
            assert!(format!("{after:?}").contains("[redacted]"), "{after:?}");
        }
    }

    #[test]
    fn http_errors_keep_only_the_start_of_the_body() {
        let body = "é".repeat(1000);
        let ModelError::Http { body: kept, .. } = ModelError::http(500, None, &body) else {
            panic!("not Http");
        };
        assert_eq!(kept.chars().count(), ERROR_BODY_CHARS);
    }

    #[test]
    fn messages_say_what_to_do() {
        let m = ModelError::Connect("http://127.0.0.1:9/v1: connection refused".into()).to_string();
        assert!(
            m.contains("http://127.0.0.1:9/v1") && m.contains("llm.base_url"),
            "{m}"
        );
        let m = ModelError::http(429, Some(2000), "").to_string();
        assert!(m.contains("2.0 s"), "{m}");
        let m = ModelError::http(401, None, "bad key").to_string();
        assert!(m.contains("API key") && m.contains("bad key"), "{m}");
        let m = ModelError::StreamCut {
            partial: "abc".into(),
        }
        .to_string();
        assert!(m.contains("3 characters"), "{m}");
        let m = ModelError::Stalled {
            after_ms: 2000,
            partial: "ab".into(),
        }
        .to_string();
        assert!(
            m.contains("llm.idle_timeout_secs") && m.contains("2000 ms"),
            "{m}"
        );
        let m = ModelError::TooLarge { limit: 1024 }.to_string();
        assert!(
            m.contains("llm.max_reply_bytes") && m.contains("1024"),
            "{m}"
        );
        let m = ModelError::http(307, None, "to https://elsewhere.example/v1").to_string();
        assert!(m.contains("llm.base_url") && m.contains("elsewhere"), "{m}");
    }
}
