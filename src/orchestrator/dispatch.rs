//! Dispatch records: every stage invocation is a request and a response, validated by the rules
//! of ARCHITECTURE §4 so a trace can never claim the impossible (a completed stage without a
//! result, a failure without errors, time running backwards).

use super::topology::NodeId;
pub use super::topology::Priority;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DispatchStatus {
    Completed,
    Failed,
    Timeout,
    Cancelled,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecutionMode {
    Sequential,
    Parallel,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DispatchRequest {
    pub dispatch_id: String,
    pub session_id: String,
    pub query_id: String,
    pub target: NodeId,
    /// The routing rule that chose the target (`rule retrieval_sufficient: evaluate → synthesize`).
    pub reason: String,
    pub priority: Priority,
    pub execution_mode: ExecutionMode,
    pub depends_on: Vec<String>,
    /// What the dispatches it depends on produced, by their target (task graphs).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub upstream_results: std::collections::BTreeMap<String, serde_json::Value>,
    /// The timeout the driver enforced: the stage's, or less when the query's deadline was
    /// nearer.
    pub timeout_ms: u64,
    /// Model tokens the dispatch may spend: what is left of the query's token budget, 0 for an
    /// offline stage.
    pub max_cost: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DispatchResponse {
    pub dispatch_id: String,
    pub status: DispatchStatus,
    pub result: Option<serde_json::Value>,
    pub confidence: Option<f64>,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
    pub execution_time_ms: f64,
    pub tokens_used: u64,
    pub model_used: String,
    /// Milliseconds since the Unix epoch.
    pub started_at: u64,
    pub completed_at: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DispatchError {
    #[error("dispatch_id {0:?} does not match disp_[a-z0-9]{{16}}")]
    BadId(String),
    #[error("timeout must be positive")]
    NonPositiveTimeout,
    #[error("max_cost must be zero or more")]
    NegativeCost,
    #[error("a completed dispatch needs a result")]
    CompletedWithoutResult,
    #[error("a failed dispatch needs at least one error")]
    FailedWithoutErrors,
    #[error("completed_at is before started_at")]
    CompletedBeforeStart,
    #[error("execution time is negative or not a number")]
    NegativeDuration,
    #[error("response {got} does not answer request {expected}")]
    IdMismatch { expected: String, got: String },
    #[error("dispatch {dispatch} depends on {missing}, which is not an earlier dispatch")]
    UnknownDependency { dispatch: String, missing: String },
    #[error("the dispatch reason is empty")]
    NoReason,
}

pub fn new_dispatch_id() -> String {
    crate::ids::random_id("disp_")
}

pub fn is_dispatch_id(id: &str) -> bool {
    crate::ids::is_random_id(id, "disp_")
}

impl DispatchRequest {
    pub fn validate(&self) -> Result<(), DispatchError> {
        if !is_dispatch_id(&self.dispatch_id) {
            return Err(DispatchError::BadId(self.dispatch_id.clone()));
        }
        if self.timeout_ms == 0 {
            return Err(DispatchError::NonPositiveTimeout);
        }
        if self.max_cost.is_nan() || self.max_cost < 0.0 {
            return Err(DispatchError::NegativeCost);
        }
        if self.reason.trim().is_empty() {
            return Err(DispatchError::NoReason);
        }
        Ok(())
    }
}

impl DispatchResponse {
    pub fn validate(&self) -> Result<(), DispatchError> {
        if !is_dispatch_id(&self.dispatch_id) {
            return Err(DispatchError::BadId(self.dispatch_id.clone()));
        }
        match self.status {
            DispatchStatus::Completed if self.result.is_none() => {
                return Err(DispatchError::CompletedWithoutResult)
            }
            DispatchStatus::Failed if self.errors.is_empty() => {
                return Err(DispatchError::FailedWithoutErrors)
            }
            _ => {}
        }
        if self.completed_at < self.started_at {
            return Err(DispatchError::CompletedBeforeStart);
        }
        if self.execution_time_ms.is_nan() || self.execution_time_ms < 0.0 {
            return Err(DispatchError::NegativeDuration);
        }
        Ok(())
    }

    /// Validates the response and that it answers `req`.
    pub fn validate_for(&self, req: &DispatchRequest) -> Result<(), DispatchError> {
        if self.dispatch_id != req.dispatch_id {
            return Err(DispatchError::IdMismatch {
                expected: req.dispatch_id.clone(),
                got: self.dispatch_id.clone(),
            });
        }
        self.validate()
    }
}

/// A request and its response: one entry of a query's trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DispatchRecord {
    pub request: DispatchRequest,
    pub response: DispatchResponse,
}

impl DispatchRecord {
    pub fn validate(&self) -> Result<(), DispatchError> {
        self.request.validate()?;
        self.response.validate_for(&self.request)
    }
}

/// Validates a query's whole trace: every record, and every dependency naming an earlier
/// dispatch of the same trace. Run on every query and on every session loaded from disk.
pub fn validate_trace(records: &[DispatchRecord]) -> Result<(), DispatchError> {
    let mut seen: Vec<&str> = Vec::with_capacity(records.len());
    for r in records {
        r.validate()?;
        if let Some(missing) = r
            .request
            .depends_on
            .iter()
            .find(|d| !seen.contains(&d.as_str()))
        {
            return Err(DispatchError::UnknownDependency {
                dispatch: r.request.dispatch_id.clone(),
                missing: missing.clone(),
            });
        }
        seen.push(&r.request.dispatch_id);
    }
    Ok(())
}

pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> DispatchRequest {
        DispatchRequest {
            dispatch_id: new_dispatch_id(),
            session_id: "s".into(),
            query_id: "q".into(),
            target: NodeId::new("plan"),
            reason: "test".into(),
            priority: Priority::High,
            execution_mode: ExecutionMode::Sequential,
            depends_on: vec![],
            upstream_results: Default::default(),
            timeout_ms: 1000,
            max_cost: 1.0,
        }
    }

    fn response(req: &DispatchRequest) -> DispatchResponse {
        DispatchResponse {
            dispatch_id: req.dispatch_id.clone(),
            status: DispatchStatus::Completed,
            result: Some(serde_json::json!({})),
            confidence: None,
            errors: vec![],
            warnings: vec![],
            execution_time_ms: 3.0,
            tokens_used: 0,
            model_used: "offline".into(),
            started_at: 100,
            completed_at: 103,
        }
    }

    #[test]
    fn ids_have_the_documented_shape() {
        for _ in 0..100 {
            assert!(is_dispatch_id(&new_dispatch_id()));
        }
        assert!(!is_dispatch_id("disp_ABCDEFGHIJKLMNOP"));
        assert!(!is_dispatch_id("disp_abc"));
        assert!(!is_dispatch_id("dispx0123456789abcdef"));
        assert_ne!(new_dispatch_id(), new_dispatch_id());
    }

    #[test]
    fn request_rules() {
        assert_eq!(request().validate(), Ok(()));
        assert_eq!(
            DispatchRequest {
                timeout_ms: 0,
                ..request()
            }
            .validate(),
            Err(DispatchError::NonPositiveTimeout)
        );
        assert_eq!(
            DispatchRequest {
                max_cost: 0.0,
                ..request()
            }
            .validate(),
            Ok(()),
            "an offline stage may spend no tokens"
        );
        assert_eq!(
            DispatchRequest {
                max_cost: -1.0,
                ..request()
            }
            .validate(),
            Err(DispatchError::NegativeCost)
        );
        assert!(matches!(
            DispatchRequest {
                dispatch_id: "x".into(),
                ..request()
            }
            .validate(),
            Err(DispatchError::BadId(_))
        ));
        assert_eq!(
            DispatchRequest {
                reason: " ".into(),
                ..request()
            }
            .validate(),
            Err(DispatchError::NoReason)
        );
    }

    #[test]
    fn a_trace_depends_only_on_earlier_dispatches() {
        let first = request();
        let second = DispatchRequest {
            depends_on: vec![first.dispatch_id.clone()],
            ..request()
        };
        let rec = |r: &DispatchRequest| DispatchRecord {
            request: r.clone(),
            response: response(r),
        };
        assert_eq!(validate_trace(&[rec(&first), rec(&second)]), Ok(()));
        assert!(matches!(
            validate_trace(&[rec(&second), rec(&first)]),
            Err(DispatchError::UnknownDependency { .. })
        ));
        let mut broken = rec(&first);
        broken.response.completed_at = 0;
        assert_eq!(
            validate_trace(&[broken]),
            Err(DispatchError::CompletedBeforeStart)
        );
    }

    #[test]
    fn response_rules() {
        let req = request();
        let ok = response(&req);
        assert_eq!(ok.validate_for(&req), Ok(()));
        assert_eq!(
            DispatchResponse {
                result: None,
                ..ok.clone()
            }
            .validate(),
            Err(DispatchError::CompletedWithoutResult)
        );
        let failed = DispatchResponse {
            status: DispatchStatus::Failed,
            result: None,
            ..ok.clone()
        };
        assert_eq!(failed.validate(), Err(DispatchError::FailedWithoutErrors));
        assert_eq!(
            DispatchResponse {
                errors: vec!["boom".into()],
                ..failed
            }
            .validate(),
            Ok(())
        );
        assert_eq!(
            DispatchResponse {
                completed_at: 99,
                ..ok.clone()
            }
            .validate(),
            Err(DispatchError::CompletedBeforeStart)
        );
        assert_eq!(
            DispatchResponse {
                execution_time_ms: -1.0,
                ..ok.clone()
            }
            .validate(),
            Err(DispatchError::NegativeDuration)
        );
        // Timeouts and cancellations need neither result nor errors.
        assert_eq!(
            DispatchResponse {
                status: DispatchStatus::Timeout,
                result: None,
                ..ok.clone()
            }
            .validate(),
            Ok(())
        );
        let other = request();
        assert!(matches!(
            ok.validate_for(&other),
            Err(DispatchError::IdMismatch { .. })
        ));
    }
}
