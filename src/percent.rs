//! Percentages written the way FOMC statements write them (`6-1/2`, `1 3/4`, `1/4`, `5.25`,
//! `0 to 1/4 percent`): read by the answer checker and by synthesize, which works out the size
//! of a move from two meetings' targets.

/// A value in percent written the way statements write it: `6-1/2`, `1/4`, `5.25`, `0`.
pub fn parse_percent_number(s: &str) -> Option<f64> {
    let s = s.trim();
    if let Some((whole, frac)) = s.split_once('-') {
        return Some(whole.parse::<f64>().ok()? + parse_fraction(frac)?);
    }
    if s.contains('/') {
        return parse_fraction(s);
    }
    s.parse().ok()
}

fn parse_fraction(s: &str) -> Option<f64> {
    let (n, d) = s.split_once('/')?;
    let (n, d): (f64, f64) = (n.trim().parse().ok()?, d.trim().parse().ok()?);
    (d != 0.0).then_some(n / d)
}

fn is_number_token(t: &str) -> bool {
    !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_digit() || c == '/' || c == '-' || c == '.')
        && t.chars().any(|c| c.is_ascii_digit())
}

/// The number ending just before `words[end]`, and how many words it took: `6-1/2`, `1/4`,
/// and the spaced form `1 3/4`.
fn number_before(words: &[&str], end: usize) -> Option<(f64, usize)> {
    let last = *words.get(end.checked_sub(1)?)?;
    if !is_number_token(last) {
        return None;
    }
    let value = parse_percent_number(last)?;
    if last.contains('/') && !last.contains('-') && end >= 2 {
        if let Ok(whole) = words[end - 2].parse::<u32>() {
            return Some((f64::from(whole) + value, 2));
        }
    }
    Some((value, 1))
}

/// Every `X percent` and `X to Y percent` in the text, as (lower, upper).
pub fn percent_values(text: &str) -> Vec<(f64, f64)> {
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '(' | ')')))
        .collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !w.to_lowercase().starts_with("percent") || i == 0 {
            continue;
        }
        let Some((hi, used)) = number_before(&words, i) else {
            continue;
        };
        let lo = (i > used + 1 && words[i - used - 1] == "to")
            .then(|| number_before(&words, i - used - 1))
            .flatten()
            .map(|(v, _)| v);
        out.push((lo.unwrap_or(hi), hi));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_statement_style() {
        assert_eq!(parse_percent_number("6-1/2"), Some(6.5));
        assert_eq!(parse_percent_number("1/4"), Some(0.25));
        assert_eq!(parse_percent_number("5.25"), Some(5.25));
        assert_eq!(parse_percent_number("x"), None);
    }
}
