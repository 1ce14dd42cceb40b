//! Circuit breaker per backend (chat model, embedder, reranker, remote store), ARCHITECTURE §4.
//!
//! The rules live in two pure functions, [`transition`] and [`admit`]: events and a clock reading
//! go in, a new state comes out. Nothing reads a real clock or keeps hidden state, so the same
//! inputs always give the same trajectory and every rule is testable without sleeping.
//! [`Breaker`] is the thin stateful wrapper the runtime holds, with an injectable [`Clock`].

use super::ErrorClass;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// Default weighted failure count that opens the breaker.
pub const DEFAULT_THRESHOLD: f64 = 3.0;
/// Default time an open breaker waits before letting a probe through.
pub const DEFAULT_COOLDOWN_MS: u64 = 30_000;

/// A failure as the breaker counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The backend cannot serve us at all (bad key, unknown model).
    Critical,
    /// The call failed but may succeed again (refused connection, malformed output).
    Recoverable,
    /// Likely to pass on its own (5xx, 429, a cut stream, a timeout).
    Transient,
}

impl FailureKind {
    /// How much this failure adds to the weighted count: transient failures count half, so a
    /// flaky but mostly working backend is not cut off as fast as a dead one.
    pub fn weight(self) -> f64 {
        match self {
            FailureKind::Critical | FailureKind::Recoverable => 1.0,
            FailureKind::Transient => 0.5,
        }
    }

    /// The breaker's view of an error class. Warnings are not failures (`None`); a timeout
    /// counts as transient, since a slow server is not a dead one.
    pub fn from_class(class: ErrorClass) -> Option<FailureKind> {
        match class {
            ErrorClass::Warning => None,
            ErrorClass::Transient | ErrorClass::Timeout => Some(FailureKind::Transient),
            ErrorClass::Recoverable => Some(FailureKind::Recoverable),
            ErrorClass::Critical => Some(FailureKind::Critical),
        }
    }
}

/// A breaker configuration that cannot work.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BreakerConfigError {
    #[error("breaker threshold must be a finite number above 0, got {0}")]
    BadThreshold(f64),
}

/// When the breaker opens and how long it stays open.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BreakerConfig {
    /// Weighted failure count at which a closed breaker opens (reached, not exceeded).
    pub threshold: f64,
    /// How long an open breaker rejects calls before admitting a probe.
    pub cooldown_ms: u64,
}

impl Default for BreakerConfig {
    fn default() -> Self {
        BreakerConfig {
            threshold: DEFAULT_THRESHOLD,
            cooldown_ms: DEFAULT_COOLDOWN_MS,
        }
    }
}

impl BreakerConfig {
    /// A checked configuration: a threshold of 0, below 0 or NaN would make the breaker open on
    /// nothing or never, which is always a configuration mistake.
    pub fn new(threshold: f64, cooldown_ms: u64) -> Result<BreakerConfig, BreakerConfigError> {
        let cfg = BreakerConfig {
            threshold,
            cooldown_ms,
        };
        cfg.validate()?;
        Ok(cfg)
    }

    /// Checks a configuration built field by field (for example, read from a file).
    pub fn validate(&self) -> Result<(), BreakerConfigError> {
        if self.threshold.is_finite() && self.threshold > 0.0 {
            Ok(())
        } else {
            Err(BreakerConfigError::BadThreshold(self.threshold))
        }
    }
}

/// The breaker's state. `failures` is the weighted failure count; in `Open` and `HalfOpen` it
/// is the count that opened the breaker (plus any failed probes), kept so the UI can say why.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum BreakerState {
    /// Calls pass; failures accumulate.
    Closed { failures: f64 },
    /// Calls are rejected until `cooldown_ms` after `opened_at_ms`.
    Open { failures: f64, opened_at_ms: u64 },
    /// The cooldown is over: calls pass as probes, and the first recorded result decides.
    HalfOpen { failures: f64 },
}

impl Default for BreakerState {
    fn default() -> Self {
        BreakerState::Closed { failures: 0.0 }
    }
}

impl BreakerState {
    /// Which of the three states this is, without its counters.
    pub fn kind(&self) -> BreakerStateKind {
        match self {
            BreakerState::Closed { .. } => BreakerStateKind::Closed,
            BreakerState::Open { .. } => BreakerStateKind::Open,
            BreakerState::HalfOpen { .. } => BreakerStateKind::HalfOpen,
        }
    }

    /// The weighted failure count.
    pub fn failures(&self) -> f64 {
        match *self {
            BreakerState::Closed { failures }
            | BreakerState::Open { failures, .. }
            | BreakerState::HalfOpen { failures } => failures,
        }
    }

    /// Milliseconds until an open breaker admits a probe; 0 in the other states.
    pub fn cooldown_remaining_ms(&self, cfg: &BreakerConfig, now_ms: u64) -> u64 {
        match *self {
            BreakerState::Open { opened_at_ms, .. } => {
                let elapsed = now_ms.saturating_sub(opened_at_ms);
                cfg.cooldown_ms.saturating_sub(elapsed)
            }
            _ => 0,
        }
    }
}

/// The state's name alone, for events and display.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakerStateKind {
    Closed,
    Open,
    HalfOpen,
}

impl BreakerStateKind {
    /// The name as ARCHITECTURE and the UI spell it (`half-open` with a hyphen).
    pub fn as_str(self) -> &'static str {
        match self {
            BreakerStateKind::Closed => "closed",
            BreakerStateKind::Open => "open",
            BreakerStateKind::HalfOpen => "half-open",
        }
    }
}

impl std::fmt::Display for BreakerStateKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What happened, as the transition function sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "input", content = "kind", rename_all = "snake_case")]
pub enum BreakerInput {
    /// A call to the backend succeeded.
    Success,
    /// A call to the backend failed.
    Failure(FailureKind),
    /// Time passed; lets an open breaker notice its cooldown is over.
    Tick,
}

/// The breaker's rules, as a pure function of configuration, state, input and clock reading.
///
/// - closed: a failure adds its weight and opens the breaker when the count reaches the
///   threshold; a success resets the count (the breaker counts a run of failures, not a
///   lifetime total).
/// - open: a tick at or after `opened_at_ms + cooldown_ms` moves to half-open. Successes and
///   failures are ignored: they come from calls admitted before the breaker opened, and letting
///   them close it (or push the cooldown back) would let stale results decide.
/// - half-open: a success closes with the count reset; a failure re-opens from `now_ms`.
pub fn transition(
    cfg: &BreakerConfig,
    state: &BreakerState,
    input: BreakerInput,
    now_ms: u64,
) -> BreakerState {
    match (*state, input) {
        (BreakerState::Closed { .. }, BreakerInput::Success) => {
            BreakerState::Closed { failures: 0.0 }
        }
        (BreakerState::Closed { failures }, BreakerInput::Failure(kind)) => {
            let failures = failures + kind.weight();
            if failures >= cfg.threshold {
                BreakerState::Open {
                    failures,
                    opened_at_ms: now_ms,
                }
            } else {
                BreakerState::Closed { failures }
            }
        }
        (BreakerState::Open { failures, .. }, BreakerInput::Tick) => {
            if state.cooldown_remaining_ms(cfg, now_ms) == 0 {
                BreakerState::HalfOpen { failures }
            } else {
                *state
            }
        }
        (BreakerState::HalfOpen { .. }, BreakerInput::Success) => {
            BreakerState::Closed { failures: 0.0 }
        }
        (BreakerState::HalfOpen { failures }, BreakerInput::Failure(kind)) => BreakerState::Open {
            failures: failures + kind.weight(),
            opened_at_ms: now_ms,
        },
        (BreakerState::Closed { .. }, BreakerInput::Tick)
        | (BreakerState::Open { .. }, BreakerInput::Success | BreakerInput::Failure(_))
        | (BreakerState::HalfOpen { .. }, BreakerInput::Tick) => *state,
    }
}

/// Whether a call may go to the backend now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "admission", rename_all = "snake_case")]
pub enum Admission {
    /// The breaker is closed: call normally.
    Allowed,
    /// The breaker is half-open: call, and record the result so the breaker can decide.
    Probe,
    /// The breaker is open: do not call; the fallback runs instead.
    Rejected { retry_in_ms: u64 },
}

/// Asks the breaker whether a call may go out at `now_ms`. An open breaker whose cooldown is
/// over becomes half-open here and admits a probe, so no separate timer is needed.
///
/// Half-open admits every caller as a probe rather than only the first: if a probe's result were
/// never recorded (the query was cancelled), a one-probe rule would leave the breaker stuck.
pub fn admit(cfg: &BreakerConfig, state: &BreakerState, now_ms: u64) -> (BreakerState, Admission) {
    match state {
        BreakerState::Closed { .. } => (*state, Admission::Allowed),
        BreakerState::HalfOpen { .. } => (*state, Admission::Probe),
        BreakerState::Open { .. } => {
            let next = transition(cfg, state, BreakerInput::Tick, now_ms);
            match next {
                BreakerState::HalfOpen { .. } => (next, Admission::Probe),
                _ => (
                    next,
                    Admission::Rejected {
                        retry_in_ms: next.cooldown_remaining_ms(cfg, now_ms),
                    },
                ),
            }
        }
    }
}

/// A source of milliseconds that never go backwards.
pub trait Clock: Send + Sync {
    /// Milliseconds since an arbitrary fixed origin.
    fn now_ms(&self) -> u64;
}

/// The real monotonic clock, counting from its creation.
#[derive(Debug, Clone, Copy)]
pub struct SystemClock {
    origin: Instant,
}

impl SystemClock {
    pub fn new() -> SystemClock {
        SystemClock {
            origin: Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock::new()
    }
}

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        // u64 milliseconds outlast any process; saturate rather than wrap all the same.
        u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

/// A clock moved by hand, for tests and replays.
#[derive(Debug, Default)]
pub struct ManualClock {
    now: AtomicU64,
}

impl ManualClock {
    pub fn new(start_ms: u64) -> ManualClock {
        ManualClock {
            now: AtomicU64::new(start_ms),
        }
    }

    /// Moves the clock forward by `ms` (saturating, so it never wraps back to 0).
    pub fn advance(&self, ms: u64) {
        // fetch_update only fails when the closure returns None, which it never does here.
        let _ = self
            .now
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |t| {
                Some(t.saturating_add(ms))
            });
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.now.load(Ordering::SeqCst)
    }
}

/// A change of state kind, reported so the UI's breaker panel can follow it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BreakerTransition {
    pub backend: String,
    pub from: BreakerStateKind,
    pub to: BreakerStateKind,
    /// The weighted failure count after the change.
    pub failures: f64,
    pub threshold: f64,
    /// Milliseconds until a probe is admitted (0 unless `to` is open).
    pub cooldown_remaining_ms: u64,
}

/// A breaker's state at one moment, for the UI and the result record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BreakerSnapshot {
    pub backend: String,
    pub state: BreakerStateKind,
    pub failures: f64,
    pub threshold: f64,
    pub cooldown_remaining_ms: u64,
}

/// One backend's breaker: the pure rules above, a lock and a clock.
pub struct Breaker {
    backend: String,
    cfg: BreakerConfig,
    state: Mutex<BreakerState>,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for Breaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Breaker")
            .field("backend", &self.backend)
            .field("cfg", &self.cfg)
            .field("state", &*self.lock())
            .finish_non_exhaustive()
    }
}

impl Breaker {
    /// A closed breaker for `backend`.
    pub fn new(backend: impl Into<String>, cfg: BreakerConfig, clock: Arc<dyn Clock>) -> Breaker {
        Breaker {
            backend: backend.into(),
            cfg,
            state: Mutex::new(BreakerState::default()),
            clock,
        }
    }

    /// The backend this breaker guards.
    pub fn backend(&self) -> &str {
        &self.backend
    }

    /// The configuration it runs with.
    pub fn config(&self) -> &BreakerConfig {
        &self.cfg
    }

    /// The current state, counters included.
    pub fn state(&self) -> BreakerState {
        *self.lock()
    }

    /// Whether a call may go out now; reports the open → half-open change when it happens here.
    pub fn admit(&self) -> (Admission, Option<BreakerTransition>) {
        let now = self.clock.now_ms();
        let mut state = self.lock();
        let before = *state;
        let (after, admission) = admit(&self.cfg, &before, now);
        *state = after;
        (admission, self.change(&before, &after, now))
    }

    /// Records a successful call.
    pub fn record_success(&self) -> Option<BreakerTransition> {
        self.apply(BreakerInput::Success)
    }

    /// Records a failed call.
    pub fn record_failure(&self, kind: FailureKind) -> Option<BreakerTransition> {
        self.apply(BreakerInput::Failure(kind))
    }

    /// Records an error by its class; warnings leave the breaker alone.
    pub fn record_error(&self, class: ErrorClass) -> Option<BreakerTransition> {
        FailureKind::from_class(class).and_then(|kind| self.record_failure(kind))
    }

    /// The state now, for display.
    pub fn snapshot(&self) -> BreakerSnapshot {
        let now = self.clock.now_ms();
        let state = *self.lock();
        BreakerSnapshot {
            backend: self.backend.clone(),
            state: state.kind(),
            failures: state.failures(),
            threshold: self.cfg.threshold,
            cooldown_remaining_ms: state.cooldown_remaining_ms(&self.cfg, now),
        }
    }

    fn apply(&self, input: BreakerInput) -> Option<BreakerTransition> {
        let now = self.clock.now_ms();
        let mut state = self.lock();
        let before = *state;
        let after = transition(&self.cfg, &before, input, now);
        *state = after;
        self.change(&before, &after, now)
    }

    fn change(
        &self,
        before: &BreakerState,
        after: &BreakerState,
        now_ms: u64,
    ) -> Option<BreakerTransition> {
        (before.kind() != after.kind()).then(|| BreakerTransition {
            backend: self.backend.clone(),
            from: before.kind(),
            to: after.kind(),
            failures: after.failures(),
            threshold: self.cfg.threshold,
            cooldown_remaining_ms: after.cooldown_remaining_ms(&self.cfg, now_ms),
        })
    }

    fn lock(&self) -> MutexGuard<'_, BreakerState> {
        // The state is a plain Copy value written in one assignment, so a panic elsewhere while
        // the lock was held cannot leave it half-updated: recovering from poison is safe.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const R: BreakerInput = BreakerInput::Failure(FailureKind::Recoverable);
    const T: BreakerInput = BreakerInput::Failure(FailureKind::Transient);
    const C: BreakerInput = BreakerInput::Failure(FailureKind::Critical);

    fn cfg() -> BreakerConfig {
        BreakerConfig::default()
    }

    /// Runs `inputs` from a closed breaker at time 0 and returns each state reached.
    fn run(inputs: &[BreakerInput]) -> Vec<BreakerState> {
        let mut state = BreakerState::default();
        inputs
            .iter()
            .map(|&input| {
                state = transition(&cfg(), &state, input, 0);
                state
            })
            .collect()
    }

    fn kinds(inputs: &[BreakerInput]) -> Vec<BreakerStateKind> {
        run(inputs).iter().map(BreakerState::kind).collect()
    }

    use BreakerStateKind as K;

    #[test]
    fn weights_and_classes() {
        assert_eq!(FailureKind::Critical.weight(), 1.0);
        assert_eq!(FailureKind::Recoverable.weight(), 1.0);
        assert_eq!(FailureKind::Transient.weight(), 0.5);
        assert_eq!(FailureKind::from_class(ErrorClass::Warning), None);
        assert_eq!(
            FailureKind::from_class(ErrorClass::Timeout),
            Some(FailureKind::Transient)
        );
        assert_eq!(
            FailureKind::from_class(ErrorClass::Transient),
            Some(FailureKind::Transient)
        );
        assert_eq!(
            FailureKind::from_class(ErrorClass::Recoverable),
            Some(FailureKind::Recoverable)
        );
        assert_eq!(
            FailureKind::from_class(ErrorClass::Critical),
            Some(FailureKind::Critical)
        );
    }

    #[test]
    fn two_recoverable_stay_closed_the_third_opens() {
        assert_eq!(kinds(&[R, R, R]), vec![K::Closed, K::Closed, K::Open]);
    }

    #[test]
    fn five_transient_stay_closed_the_sixth_opens() {
        let k = kinds(&[T; 6]);
        assert!(k[..5].iter().all(|&s| s == K::Closed), "{k:?}");
        assert_eq!(k[5], K::Open);
        assert_eq!(run(&[T; 5])[4], BreakerState::Closed { failures: 2.5 });
    }

    #[test]
    fn two_recoverable_and_two_transient_open() {
        assert_eq!(
            kinds(&[R, T, R, T]),
            vec![K::Closed, K::Closed, K::Closed, K::Open]
        );
    }

    #[test]
    fn one_critical_and_four_transient_open() {
        assert_eq!(
            kinds(&[C, T, T, T, T]),
            vec![K::Closed, K::Closed, K::Closed, K::Closed, K::Open]
        );
    }

    #[test]
    fn opening_records_the_time_and_the_count() {
        let c = cfg();
        let s = transition(&c, &BreakerState::Closed { failures: 2.0 }, R, 1234);
        assert_eq!(
            s,
            BreakerState::Open {
                failures: 3.0,
                opened_at_ms: 1234
            }
        );
    }

    #[test]
    fn success_in_closed_resets_the_count() {
        let s = run(&[R, R, BreakerInput::Success, R, R]);
        assert_eq!(s[2], BreakerState::Closed { failures: 0.0 });
        assert_eq!(s[4], BreakerState::Closed { failures: 2.0 });
    }

    #[test]
    fn rejects_while_open_with_the_time_left() {
        let c = cfg();
        let open = BreakerState::Open {
            failures: 3.0,
            opened_at_ms: 1_000,
        };
        let (s, a) = admit(&c, &open, 1_000);
        assert_eq!(s, open);
        assert_eq!(
            a,
            Admission::Rejected {
                retry_in_ms: 30_000
            }
        );
        let (s, a) = admit(&c, &open, 11_000);
        assert_eq!(s, open);
        assert_eq!(
            a,
            Admission::Rejected {
                retry_in_ms: 20_000
            }
        );
        let (_, a) = admit(&c, &open, 30_999);
        assert_eq!(a, Admission::Rejected { retry_in_ms: 1 });
    }

    #[test]
    fn half_open_exactly_at_the_cooldown_not_before() {
        let c = cfg();
        let open = BreakerState::Open {
            failures: 3.0,
            opened_at_ms: 500,
        };
        let before = 500 + c.cooldown_ms - 1;
        let at = 500 + c.cooldown_ms;
        assert_eq!(transition(&c, &open, BreakerInput::Tick, before), open);
        assert_eq!(
            transition(&c, &open, BreakerInput::Tick, at),
            BreakerState::HalfOpen { failures: 3.0 }
        );
        assert!(matches!(
            admit(&c, &open, before).1,
            Admission::Rejected { .. }
        ));
        assert_eq!(
            admit(&c, &open, at),
            (BreakerState::HalfOpen { failures: 3.0 }, Admission::Probe)
        );
    }

    #[test]
    fn closed_admits_and_half_open_probes() {
        let c = cfg();
        let closed = BreakerState::Closed { failures: 2.5 };
        assert_eq!(admit(&c, &closed, 7), (closed, Admission::Allowed));
        let half = BreakerState::HalfOpen { failures: 3.0 };
        assert_eq!(admit(&c, &half, 7), (half, Admission::Probe));
    }

    #[test]
    fn half_open_success_closes_with_counters_reset() {
        let half = BreakerState::HalfOpen { failures: 3.5 };
        assert_eq!(
            transition(&cfg(), &half, BreakerInput::Success, 99),
            BreakerState::Closed { failures: 0.0 }
        );
    }

    #[test]
    fn half_open_failure_reopens_from_now() {
        let c = cfg();
        let half = BreakerState::HalfOpen { failures: 3.0 };
        let s = transition(&c, &half, T, 70_000);
        assert_eq!(
            s,
            BreakerState::Open {
                failures: 3.5,
                opened_at_ms: 70_000
            }
        );
        // The new cooldown counts from the re-opening, not the first opening.
        assert_eq!(
            admit(&c, &s, 70_001).1,
            Admission::Rejected {
                retry_in_ms: 29_999
            }
        );
    }

    #[test]
    fn open_ignores_late_results() {
        let open = BreakerState::Open {
            failures: 3.0,
            opened_at_ms: 0,
        };
        for input in [BreakerInput::Success, R, C, T] {
            assert_eq!(transition(&cfg(), &open, input, 40_000), open, "{input:?}");
        }
    }

    #[test]
    fn config_is_validated() {
        assert!(BreakerConfig::new(3.0, 10).is_ok());
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(BreakerConfig::new(bad, 10).is_err(), "{bad}");
        }
    }

    #[test]
    fn state_and_kind_serialise_as_documented() {
        let s = BreakerState::HalfOpen { failures: 3.0 };
        let json = serde_json::to_value(s).expect("serialises");
        assert_eq!(
            json,
            serde_json::json!({"state": "half_open", "failures": 3.0})
        );
        let back: BreakerState = serde_json::from_value(json).expect("deserialises");
        assert_eq!(back, s);
        assert_eq!(
            serde_json::to_string(&BreakerStateKind::HalfOpen).expect("serialises"),
            "\"half_open\""
        );
        assert_eq!(BreakerStateKind::HalfOpen.as_str(), "half-open");
        assert_eq!(BreakerStateKind::Closed.as_str(), "closed");
        assert_eq!(BreakerStateKind::Open.as_str(), "open");
    }

    #[test]
    fn manual_clock_advances_and_saturates() {
        let clock = ManualClock::new(10);
        clock.advance(5);
        assert_eq!(clock.now_ms(), 15);
        clock.advance(u64::MAX);
        assert_eq!(clock.now_ms(), u64::MAX);
    }

    #[test]
    fn wrapper_emits_a_transition_exactly_on_kind_changes() {
        let clock = Arc::new(ManualClock::new(0));
        let breaker = Breaker::new("chat", BreakerConfig::default(), clock.clone());

        assert_eq!(breaker.admit(), (Admission::Allowed, None));
        assert_eq!(breaker.record_failure(FailureKind::Recoverable), None);
        assert_eq!(breaker.record_error(ErrorClass::Warning), None);
        assert_eq!(breaker.record_failure(FailureKind::Recoverable), None);
        assert_eq!(breaker.snapshot().failures, 2.0);

        clock.advance(100);
        let opened = breaker.record_failure(FailureKind::Critical);
        assert_eq!(
            opened,
            Some(BreakerTransition {
                backend: "chat".into(),
                from: BreakerStateKind::Closed,
                to: BreakerStateKind::Open,
                failures: 3.0,
                threshold: 3.0,
                cooldown_remaining_ms: 30_000,
            })
        );
        // Further results while open change nothing, so nothing is emitted.
        assert_eq!(breaker.record_failure(FailureKind::Critical), None);

        clock.advance(10_000);
        assert_eq!(
            breaker.admit(),
            (
                Admission::Rejected {
                    retry_in_ms: 20_000
                },
                None
            )
        );
        assert_eq!(
            breaker.snapshot(),
            BreakerSnapshot {
                backend: "chat".into(),
                state: BreakerStateKind::Open,
                failures: 3.0,
                threshold: 3.0,
                cooldown_remaining_ms: 20_000,
            }
        );

        clock.advance(20_000);
        let (admission, half) = breaker.admit();
        assert_eq!(admission, Admission::Probe);
        let half = half.map(|t| (t.from, t.to));
        assert_eq!(
            half,
            Some((BreakerStateKind::Open, BreakerStateKind::HalfOpen))
        );
        // A second caller in half-open is a probe too, but the kind did not change.
        assert_eq!(breaker.admit(), (Admission::Probe, None));

        let reopened = breaker.record_error(ErrorClass::Timeout);
        assert_eq!(
            reopened.map(|t| (t.from, t.to, t.failures, t.cooldown_remaining_ms)),
            Some((
                BreakerStateKind::HalfOpen,
                BreakerStateKind::Open,
                3.5,
                30_000
            ))
        );

        clock.advance(30_000);
        assert_eq!(breaker.admit().0, Admission::Probe);
        let closed = breaker.record_success();
        assert_eq!(
            closed.map(|t| (t.from, t.to, t.failures, t.cooldown_remaining_ms)),
            Some((BreakerStateKind::HalfOpen, BreakerStateKind::Closed, 0.0, 0))
        );
        assert_eq!(breaker.record_success(), None);
        assert_eq!(breaker.state(), BreakerState::Closed { failures: 0.0 });
    }

    fn any_input() -> impl Strategy<Value = BreakerInput> {
        prop_oneof![
            Just(BreakerInput::Success),
            Just(BreakerInput::Tick),
            Just(R),
            Just(T),
            Just(C),
        ]
    }

    /// Runs timed inputs (each with the milliseconds since the previous one) from a closed
    /// breaker, admitting before each success or failure as the runtime does.
    fn trajectory(cfg: &BreakerConfig, steps: &[(BreakerInput, u64)]) -> Vec<BreakerState> {
        let mut now = 0u64;
        let mut state = BreakerState::default();
        let mut out = Vec::new();
        for &(input, dt) in steps {
            now = now.saturating_add(dt);
            let (admitted, _) = admit(cfg, &state, now);
            out.push(admitted);
            state = transition(cfg, &admitted, input, now);
            out.push(state);
        }
        out
    }

    proptest! {
        #[test]
        fn same_inputs_same_trajectory_and_open_only_at_threshold(
            steps in proptest::collection::vec((any_input(), 0u64..20_000), 0..80),
            threshold_halves in 1u32..10,
            cooldown_ms in 0u64..40_000,
        ) {
            let cfg = BreakerConfig { threshold: f64::from(threshold_halves) / 2.0, cooldown_ms };
            let first = trajectory(&cfg, &steps);
            let second = trajectory(&cfg, &steps);
            prop_assert_eq!(&first, &second);

            let mut previous = BreakerState::default();
            for state in first {
                if let BreakerState::Open { failures, .. } = state {
                    // Only a failed probe may re-open without reaching the threshold from
                    // closed, and since half-open keeps the count that opened it (plus the
                    // probe's weight), even that re-opening is at or above the threshold.
                    let from_half_open = matches!(previous, BreakerState::HalfOpen { .. });
                    let from_closed = matches!(previous, BreakerState::Closed { .. });
                    prop_assert!(failures >= cfg.threshold, "open below threshold: {:?}", state);
                    prop_assert!(
                        from_closed || from_half_open || previous == state,
                        "opened from {:?}", previous
                    );
                }
                if let BreakerState::Closed { failures } = state {
                    prop_assert!(failures < cfg.threshold);
                }
                previous = state;
            }
        }
    }
}
