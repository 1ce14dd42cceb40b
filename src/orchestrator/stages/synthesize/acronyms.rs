//! Acronyms a passage defines ("the standing repurchase agreement (repo) facility (SRF)"), so a
//! sentence that only says "the SRF" still matches a question about a "standing facility".

/// `(acronym, the words before its definition)` for each acronym of 2–6 capitals defined in
/// parentheses; the words are as many as the acronym has letters plus two, skipping other
/// parentheses ("(repo)").
pub fn definitions(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut rest = text;
    let mut offset = 0;
    while let Some(open) = rest.find('(') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(')') else { break };
        let inner = &after[..close];
        let is_acronym =
            (2..=6).contains(&inner.len()) && inner.chars().all(|c| c.is_ascii_uppercase());
        if is_acronym && !out.iter().any(|(a, _)| a == inner) {
            let before = &text[..offset + open];
            let mut depth = 0usize;
            let mut words: Vec<&str> = Vec::new();
            for w in before.split_whitespace().rev() {
                if w.ends_with(')') {
                    depth += 1;
                }
                let inside = depth > 0;
                if w.starts_with('(') {
                    depth = depth.saturating_sub(1);
                }
                if !inside {
                    words.push(w);
                }
                if words.len() >= inner.len() + 2 {
                    break;
                }
            }
            words.reverse();
            out.push((inner.to_string(), words.join(" ")));
        }
        offset += open + 1 + close + 1;
        rest = &after[close + 1..];
    }
    out
}

/// The definitions of the acronyms `sentence` uses, joined.
pub fn expansions(sentence: &str, defs: &[(String, String)]) -> String {
    let used: Vec<&str> = sentence
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    defs.iter()
        .filter(|(a, _)| used.contains(&a.as_str()))
        .map(|(_, e)| e.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_skip_other_parentheses_and_expand_where_used() {
        let p = "the manager summarized the terms for the standing repurchase agreement (repo) facility (SRF) and the Foreign and International Monetary Authorities (FIMA) Repo Facility. The Committee voted unanimously to approve the establishment of the SRF.";
        let d = definitions(p);
        assert_eq!(d[0].0, "SRF");
        assert!(
            d[0].1.contains("standing repurchase agreement facility"),
            "{d:?}"
        );
        assert_eq!(d[1].0, "FIMA");
        let e = expansions("The Committee voted to approve the SRF.", &d);
        assert!(e.contains("standing") && !e.contains("Monetary"), "{e}");
        assert!(expansions("No acronym here.", &d).is_empty());
        assert!(definitions("a (b) and (Repo) and (A1)").is_empty());
    }
}
