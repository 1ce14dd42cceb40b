//! Keeping secrets out of session files: the redaction rules live in [`crate::redact`], shared
//! with the model client (which redacts server error bodies) and the logs.

pub use crate::redact::{redact, secrets_from_env, MIN_SECRET_LEN, REDACTED, SECRET_ENV_VARS};
