//! Error policy and retries, ARCHITECTURE §4: what the orchestrator does after a stage's call
//! fails, by error class. Pure functions: the caller supplies the attempt count, the jitter and
//! the clock reading, so every decision is reproducible in tests and replays.

use super::ErrorClass;
use serde::{Deserialize, Serialize};

/// What to do after an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum PolicyDecision {
    /// Keep the stage's result; the error is only noted.
    Continue,
    /// Call again after waiting `after_ms`.
    Retry { after_ms: u64 },
    /// Stop calling; run the stage's fallback (extractive synthesis, fusion order, sparse only).
    Fallback,
    /// The query fails.
    Fail,
}

/// Retry limits and backoff shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RetryPolicy {
    /// Retries after the first failure (so at most `max_retries + 1` calls).
    pub max_retries: u32,
    /// First backoff step; doubles on each retry.
    pub base_ms: u64,
    /// Largest backoff step.
    pub cap_ms: u64,
    /// The longest server-requested `Retry-After` worth waiting for.
    pub max_retry_after_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            base_ms: 250,
            cap_ms: 4000,
            max_retry_after_ms: 10_000,
        }
    }
}

/// Decides what follows an error of `class`, where `attempt` is the number of retries already
/// made for this call (0 after the first failure), `retry_after_ms` the server's `Retry-After`
/// if it sent one, and `jitter` a caller-drawn number in `[0, 1)`.
///
/// - warning: continue.
/// - transient, recoverable: retry while `attempt < max_retries`, then fall back. A
///   `Retry-After` above `max_retry_after_ms` falls back at once: the user is watching a live
///   query, and an answer from the fallback now beats a better one after a long silent stall;
///   the circuit breaker decides when the backend is tried again. A shorter `Retry-After` is a
///   floor for the delay, since calling earlier would only be refused again.
/// - timeout: fall back. The offline stage is the partial result, and retrying a server that
///   was just too slow doubles the wait for likely the same outcome.
/// - critical: fail the query.
pub fn decide(
    policy: &RetryPolicy,
    class: ErrorClass,
    attempt: u32,
    retry_after_ms: Option<u64>,
    jitter: f64,
) -> PolicyDecision {
    match class {
        ErrorClass::Warning => PolicyDecision::Continue,
        ErrorClass::Critical => PolicyDecision::Fail,
        ErrorClass::Timeout => PolicyDecision::Fallback,
        ErrorClass::Transient | ErrorClass::Recoverable => {
            if attempt >= policy.max_retries {
                return PolicyDecision::Fallback;
            }
            match retry_after_ms {
                Some(wait) if wait > policy.max_retry_after_ms => PolicyDecision::Fallback,
                _ => PolicyDecision::Retry {
                    after_ms: backoff_ms(policy, attempt, jitter).max(retry_after_ms.unwrap_or(0)),
                },
            }
        }
    }
}

/// The wait before retry number `attempt + 1`: `base_ms * 2^attempt` capped at `cap_ms`, with
/// "equal jitter": half the step is fixed and the other half scaled by `jitter`. The fixed half
/// keeps a minimum spacing; the random half keeps clients that failed together from retrying
/// in lockstep. A `jitter` outside `[0, 1]` is clamped (NaN counts as 0).
pub fn backoff_ms(policy: &RetryPolicy, attempt: u32, jitter: f64) -> u64 {
    let factor = 1u64.checked_shl(attempt).unwrap_or(u64::MAX);
    let step = policy.base_ms.saturating_mul(factor).min(policy.cap_ms);
    let spread = step / 2;
    let fixed = step - spread;
    let jitter = if jitter.is_nan() {
        0.0
    } else {
        jitter.clamp(0.0, 1.0)
    };
    // f64 → u64 `as` saturates; the min guards against rounding above the spread.
    let extra = ((spread as f64) * jitter).floor() as u64;
    fixed + extra.min(spread)
}

#[cfg(test)]
mod tests {
    use super::*;
    // `Retry-After` is parsed by the HTTP client that reads the header; the policy's tests check
    // the values it hands over.
    use crate::model::error::parse_retry_after;
    use proptest::prelude::*;
    use std::time::{Duration, SystemTime, UNIX_EPOCH};

    fn policy() -> RetryPolicy {
        RetryPolicy::default()
    }

    #[test]
    fn warning_continues_critical_fails_timeout_falls_back() {
        let p = policy();
        assert_eq!(
            decide(&p, ErrorClass::Warning, 0, None, 0.5),
            PolicyDecision::Continue
        );
        assert_eq!(
            decide(&p, ErrorClass::Critical, 0, None, 0.5),
            PolicyDecision::Fail
        );
        // A timeout falls back even on the first attempt, with retries left.
        assert_eq!(
            decide(&p, ErrorClass::Timeout, 0, None, 0.5),
            PolicyDecision::Fallback
        );
        assert_eq!(
            decide(&p, ErrorClass::Timeout, 0, Some(100), 0.5),
            PolicyDecision::Fallback
        );
    }

    #[test]
    fn transient_and_recoverable_retry_until_the_limit_then_fall_back() {
        let p = policy();
        for class in [ErrorClass::Transient, ErrorClass::Recoverable] {
            assert_eq!(
                decide(&p, class, 0, None, 0.0),
                PolicyDecision::Retry { after_ms: 125 },
                "{class:?}"
            );
            // attempt 1 = max_retries - 1: the last retry.
            assert_eq!(
                decide(&p, class, 1, None, 0.0),
                PolicyDecision::Retry { after_ms: 250 },
                "{class:?}"
            );
            // attempt 2 = max_retries: no more retries.
            assert_eq!(
                decide(&p, class, 2, None, 0.0),
                PolicyDecision::Fallback,
                "{class:?}"
            );
            assert_eq!(
                decide(&p, class, 3, None, 0.0),
                PolicyDecision::Fallback,
                "{class:?}"
            );
        }
        let none = RetryPolicy {
            max_retries: 0,
            ..p
        };
        assert_eq!(
            decide(&none, ErrorClass::Transient, 0, None, 0.0),
            PolicyDecision::Fallback
        );
    }

    #[test]
    fn retry_after_is_a_floor_and_a_limit() {
        let p = policy();
        // Longer than the backoff (125-250 ms at attempt 0): the server's wait wins.
        assert_eq!(
            decide(&p, ErrorClass::Transient, 0, Some(3000), 0.9),
            PolicyDecision::Retry { after_ms: 3000 }
        );
        // Shorter than the backoff: the backoff stands.
        assert_eq!(
            decide(&p, ErrorClass::Transient, 1, Some(10), 0.0),
            PolicyDecision::Retry { after_ms: 250 }
        );
        // Exactly the limit is still worth waiting for; 1 ms more is not.
        assert_eq!(
            decide(&p, ErrorClass::Transient, 0, Some(10_000), 0.0),
            PolicyDecision::Retry { after_ms: 10_000 }
        );
        assert_eq!(
            decide(&p, ErrorClass::Recoverable, 0, Some(10_001), 0.0),
            PolicyDecision::Fallback
        );
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let p = policy();
        // jitter 0 gives the fixed half, jitter near 1 almost the full step.
        assert_eq!(backoff_ms(&p, 0, 0.0), 125);
        assert_eq!(backoff_ms(&p, 1, 0.0), 250);
        assert_eq!(backoff_ms(&p, 2, 0.0), 500);
        assert_eq!(backoff_ms(&p, 4, 0.0), 2000);
        // 250 * 2^5 = 8000, capped at 4000.
        assert_eq!(backoff_ms(&p, 5, 0.0), 2000);
        assert_eq!(backoff_ms(&p, 5, 0.5), 3000);
        assert_eq!(backoff_ms(&p, 5, 0.999_999), 3999);
        assert_eq!(backoff_ms(&p, 5, 1.0), 4000);
        // Huge attempts saturate instead of overflowing.
        assert_eq!(backoff_ms(&p, 200, 1.0), 4000);
        // Out-of-range jitter is clamped.
        assert_eq!(backoff_ms(&p, 0, -3.0), 125);
        assert_eq!(backoff_ms(&p, 0, 7.0), 250);
        assert_eq!(backoff_ms(&p, 0, f64::NAN), 125);
    }

    #[test]
    fn parses_delta_seconds() {
        let now = SystemTime::UNIX_EPOCH;
        assert_eq!(parse_retry_after("120", now), Some(120_000));
        assert_eq!(parse_retry_after(" 0 ", now), Some(0));
        assert_eq!(
            parse_retry_after("99999999999999999999999", now),
            Some(u64::MAX)
        );
        for bad in ["", "-5", "1.5", "12s", "soon"] {
            assert_eq!(parse_retry_after(bad, now), None, "{bad:?}");
        }
    }

    #[test]
    fn parses_imf_fixdate() {
        // 2015-10-21T07:28:00Z is 1_445_412_480 seconds after the epoch.
        let date = "Wed, 21 Oct 2015 07:28:00 GMT";
        let at = |secs: u64| UNIX_EPOCH + Duration::from_secs(secs);
        assert_eq!(
            parse_retry_after(date, at(1_445_412_480 - 90)),
            Some(90_000)
        );
        // Sub-second precision of `now` is kept.
        let now = at(1_445_412_480 - 2) + Duration::from_millis(250);
        assert_eq!(parse_retry_after(date, now), Some(1750));
        // Now, or in the past: no wait.
        assert_eq!(parse_retry_after(date, at(1_445_412_480)), Some(0));
        assert_eq!(parse_retry_after(date, at(1_500_000_000)), Some(0));
        assert_eq!(
            parse_retry_after("Thu, 01 Jan 1970 00:00:00 GMT", UNIX_EPOCH),
            Some(0)
        );
        // Before the epoch is the past too.
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1960 08:49:37 GMT", UNIX_EPOCH),
            Some(0)
        );
    }

    /// Seconds from the epoch (negative before it) of an HTTP date.
    fn parse_imf_fixdate(value: &str) -> Option<i64> {
        let t = crate::model::error::parse_http_date(value)?;
        Some(match t.duration_since(UNIX_EPOCH) {
            Ok(d) => d.as_secs() as i64,
            Err(e) => -(e.duration().as_secs() as i64),
        })
    }

    #[test]
    fn calendar_arithmetic_is_right() {
        assert_eq!(parse_imf_fixdate("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(
            parse_imf_fixdate("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
        // Leap day, and the day after, in a year divisible by 400.
        assert_eq!(
            parse_imf_fixdate("Tue, 29 Feb 2000 00:00:00 GMT"),
            Some(951_782_400)
        );
        assert_eq!(
            parse_imf_fixdate("Wed, 01 Mar 2000 00:00:00 GMT"),
            Some(951_868_800)
        );
        assert_eq!(
            parse_imf_fixdate("Fri, 31 Dec 1999 23:59:59 GMT"),
            Some(946_684_799)
        );
        assert_eq!(parse_imf_fixdate("Wed, 31 Dec 1969 23:59:59 GMT"), Some(-1));
    }

    #[test]
    fn rejects_malformed_dates() {
        for bad in [
            "Wed, 21 Oct 2015 07:28:00 UTC",
            "Wed 21 Oct 2015 07:28:00 GMT",
            "Wed, 21 Okt 2015 07:28:00 GMT",
            "Wed, 1 Oct 2015 07:28:00 GMT",
            "Wed, 21 Oct 15 07:28:00 GMT",
            "Wed, 21 Oct 2015 7:28:00 GMT",
            "Wed, 21 Oct 2015 24:00:00 GMT",
            "Wed, 21 Oct 2015 07:60:00 GMT",
            "Wed, 32 Oct 2015 07:28:00 GMT",
            "Fri, 29 Feb 2019 07:28:00 GMT",
            "Thu, 29 Feb 1900 07:28:00 GMT",
            "Wed, 00 Oct 2015 07:28:00 GMT",
            "Wednesday, 21-Oct-15 07:28:00 GMT",
            "Wed Oct 21 07:28:00 2015",
            "Wed,  21 Oct 2015 07:28:00 GMT",
            "Wed, +1 Oct 2015 07:28:00 GMT",
        ] {
            assert_eq!(parse_retry_after(bad, UNIX_EPOCH), None, "{bad:?}");
        }
        // A leap second is allowed by the grammar.
        assert!(parse_retry_after("Wed, 31 Dec 2016 23:59:60 GMT", UNIX_EPOCH).is_some());
    }

    fn any_policy() -> impl Strategy<Value = RetryPolicy> {
        (0u32..5, 0u64..10_000, 0u64..100_000, 0u64..60_000).prop_map(
            |(max_retries, base_ms, cap_ms, max_retry_after_ms)| RetryPolicy {
                max_retries,
                base_ms,
                cap_ms,
                max_retry_after_ms,
            },
        )
    }

    proptest! {
        #[test]
        fn backoff_stays_within_equal_jitter_bounds(
            p in any_policy(), attempt in 0u32..80, jitter in 0.0f64..1.0,
        ) {
            let step = p.base_ms
                .saturating_mul(1u64.checked_shl(attempt).unwrap_or(u64::MAX))
                .min(p.cap_ms);
            let delay = backoff_ms(&p, attempt, jitter);
            prop_assert!(delay * 2 >= step, "delay {} below half of {}", delay, step);
            prop_assert!(delay <= step, "delay {} above {}", delay, step);
            // More jitter never means a shorter wait.
            prop_assert!(backoff_ms(&p, attempt, 0.0) <= delay);
        }

        #[test]
        fn retries_never_wait_less_than_retry_after(
            p in any_policy(), attempt in 0u32..6, jitter in 0.0f64..1.0,
            retry_after in proptest::option::of(0u64..80_000),
            recoverable in any::<bool>(),
        ) {
            let class = if recoverable { ErrorClass::Recoverable } else { ErrorClass::Transient };
            match decide(&p, class, attempt, retry_after, jitter) {
                PolicyDecision::Retry { after_ms } => {
                    prop_assert!(attempt < p.max_retries);
                    prop_assert!(after_ms >= retry_after.unwrap_or(0));
                    prop_assert!(after_ms >= backoff_ms(&p, attempt, jitter));
                    prop_assert!(retry_after.is_none_or(|r| r <= p.max_retry_after_ms));
                }
                PolicyDecision::Fallback => {
                    prop_assert!(
                        attempt >= p.max_retries
                            || retry_after.is_some_and(|r| r > p.max_retry_after_ms)
                    );
                }
                other => return Err(TestCaseError::fail(format!("unexpected {other:?}"))),
            }
        }

        #[test]
        fn delta_seconds_round_trip(seconds in 0u64..10_000_000) {
            prop_assert_eq!(
                parse_retry_after(&seconds.to_string(), SystemTime::now()),
                Some(seconds * 1000)
            );
        }
    }
}
