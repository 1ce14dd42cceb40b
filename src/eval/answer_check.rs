//! Checking an answer's text against an expected rate or action, as the FOMC questions state
//! them: `answer_value_lower/upper` in percent, or `change_bp` in basis points (negative = cut).

use crate::percent::{parse_percent_number, percent_values};

/// Whether the text states the expected value or range.
pub fn states_value(text: &str, lower: f64, upper: f64) -> bool {
    percent_values(text)
        .iter()
        .any(|(l, u)| (l - lower).abs() < 1e-6 && (u - upper).abs() < 1e-6)
}

/// The direction and size (basis points, signed) of the first policy action the text states.
pub fn first_action(text: &str) -> Option<i32> {
    let lower = text.to_lowercase();
    for sentence in lower.split_inclusive(['.', '!', '?']) {
        let up = ["raise", "increase"].iter().any(|v| sentence.contains(v));
        let down = ["lower", "reduce", "decrease", "cut "]
            .iter()
            .any(|v| sentence.contains(v));
        // "reaffirmed its view that the current … range … remains appropriate" is the
        // statements' other way of saying the target was left where it was.
        let hold = [
            "maintain",
            "keep",
            "leave",
            "left unchanged",
            "unchanged",
            "remains appropriate",
        ]
        .iter()
        .any(|v| sentence.contains(v));
        if !(up || down || hold) || !sentence.contains("rate") {
            continue;
        }
        if hold && !up && !down {
            return Some(0);
        }
        let size = amount_bp(sentence)?;
        return Some(if down && !up { -size } else { size });
    }
    None
}

/// `50 basis points`, `1/2 percentage point`, `3/4 of a percentage point`.
fn amount_bp(sentence: &str) -> Option<i32> {
    let words: Vec<&str> = sentence.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        if w.starts_with("basis") && i > 0 {
            return words[i - 1].parse().ok();
        }
        if w.starts_with("percentage") && i > 0 {
            let num = if words[i - 1] == "a" && i > 2 && words[i - 2] == "of" {
                words[i - 3]
            } else {
                words[i - 1]
            };
            return parse_percent_number(num).map(|v| (v * 100.0).round() as i32);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_ranges() {
        let t = "keep the target range for the federal funds rate at 0 to 1/4 percent [1]. Earlier it was 6-1/2 percent.";
        assert_eq!(percent_values(t), vec![(0.0, 0.25), (6.5, 6.5)]);
        assert!(states_value(t, 0.0, 0.25));
        assert!(states_value(t, 6.5, 6.5));
        assert!(!states_value(t, 0.25, 0.25));
        assert!(states_value("to 1 to 1-1/4 percent.", 1.0, 1.25));
        assert!(states_value("unchanged at 1 3/4 percent [1].", 1.75, 1.75));
    }

    #[test]
    fn actions() {
        assert_eq!(first_action("The Committee voted today to raise its target for the federal funds rate by 50 basis points to 6-1/2 percent."), Some(50));
        assert_eq!(first_action("decided today to lower the target range for the federal funds rate by 1/2 percentage point, to 1 to 1-1/4 percent"), Some(-50));
        assert_eq!(first_action("The Committee decided today to keep its target for the federal funds rate at 6-1/2 percent."), Some(0));
        assert_eq!(first_action("reduce its target for the federal funds rate 3/4 of a percentage point to 2-1/4 percent."), Some(-75));
        assert_eq!(first_action("Inflation was low."), None);
        assert_eq!(first_action("the Committee today reaffirmed its view that the current 0 to 1/4 percent target range for the federal funds rate remains appropriate."), Some(0));
    }
}
