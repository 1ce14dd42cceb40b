//! Random ids: a prefix and 16 lower-case letters or digits (`disp_…`, `sess_…`).

use rand::Rng;

const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";

/// `prefix` followed by 16 random characters from `[a-z0-9]`.
pub fn random_id(prefix: &str) -> String {
    let mut rng = rand::rng();
    let tail: String = (0..16)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect();
    format!("{prefix}{tail}")
}

/// Whether `id` is `prefix` followed by 16 characters from `[a-z0-9]`.
pub fn is_random_id(id: &str, prefix: &str) -> bool {
    id.strip_prefix(prefix).is_some_and(|t| {
        t.len() == 16
            && t.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    })
}
