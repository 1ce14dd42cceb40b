//! Dispatch records: every stage invocation is a request and a response, validated by the rules
//! of ARCHITECTURE §4 so a trace can never claim the impossible (a completed stage without a
//! result, a failure without errors, time running backwards).

use super::topology::StageId;
use rand::Rng;
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
    pub target: StageId,
    pub reason: String,
    pub priority: u8,
    pub execution_mode: ExecutionMode,
    pub depends_on: Vec<String>,
    pub timeout_ms: u64,
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
    #[error("max_cost must be positive")]
    NonPositiveCost,
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
}

pub fn new_dispatch_id() -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    let tail: String = (0..16)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect();
    format!("disp_{tail}")
}

pub fn is_dispatch_id(id: &str) -> bool {
    id.strip_prefix("disp_").is_some_and(|t| {
        t.len() == 16
            && t.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    })
}

impl DispatchRequest {
    pub fn validate(&self) -> Result<(), DispatchError> {
        if !is_dispatch_id(&self.dispatch_id) {
            return Err(DispatchError::BadId(self.dispatch_id.clone()));
        }
        if self.timeout_ms == 0 {
            return Err(DispatchError::NonPositiveTimeout);
        }
        if self.max_cost.is_nan() || self.max_cost <= 0.0 {
            return Err(DispatchError::NonPositiveCost);
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
            target: StageId::Plan,
            reason: "test".into(),
            priority: 1,
            execution_mode: ExecutionMode::Sequential,
            depends_on: vec![],
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
            Err(DispatchError::NonPositiveCost)
        );
        assert_eq!(
            DispatchRequest {
                max_cost: -1.0,
                ..request()
            }
            .validate(),
            Err(DispatchError::NonPositiveCost)
        );
        assert!(matches!(
            DispatchRequest {
                dispatch_id: "x".into(),
                ..request()
            }
            .validate(),
            Err(DispatchError::BadId(_))
        ));
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
