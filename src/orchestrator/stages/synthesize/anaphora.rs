//! Sentences that lean on the one before them. "Moreover, he expressed his opposition …" names
//! no one, and "Consequently, it would not be appropriate …" gives a conclusion whose reason
//! is the sentence before; shown alone, neither answers. Such a sentence brings the sentence
//! before it in its passage into the answer.

use crate::orchestrator::asks::Asks;

/// Connectives that add to what was said before without pointing at anything in it; what
/// follows them is read for a pronoun.
const ADDING: &[&str] = &[
    "Moreover, ",
    "Furthermore, ",
    "In addition, ",
    "Also, ",
    "However, ",
    "Nonetheless, ",
    "Nevertheless, ",
    "Still, ",
];

/// Openers that stand for one person named before (a dissenter, the Chair). "They" is left
/// out: it stands for "participants" or "members", which the answer does without.
const PERSONAL: &[&str] = &["He ", "She ", "His ", "Her ", "In his view", "In her view"];

/// Openers that draw a conclusion from, or act on, what was said before: its reason. "These
/// actions were taken in light of …" is left out: "these" points back at the action, and the
/// sentence gives the reason itself.
const CONCLUDING: &[&str] = &[
    "Consequently",
    "Therefore",
    "Thus",
    "Hence",
    "Accordingly",
    "As a result",
    "As a consequence",
    "Partly as a consequence",
    "For these reasons",
    "For this reason",
    "Against this backdrop",
    "Against that backdrop",
    "In these circumstances",
    "Under these circumstances",
    "In this context",
    "In that context",
    "Given these",
    "Given this",
    "Given that assessment",
    "In view of these",
    "In view of this",
    "In light of these",
    "In light of this",
];

/// Whether `sentence` needs the sentence before it to answer a question asking `asks`: a
/// pronoun for one person always does; a conclusion does when the question asks why.
pub fn leans_on_previous(sentence: &str, asks: Asks) -> bool {
    let s = sentence.trim_start_matches(['"', '\u{201C}', ' ']);
    let rest = ADDING
        .iter()
        .find_map(|c| s.strip_prefix(c))
        .map(capitalised)
        .unwrap_or_else(|| s.to_string());
    let starts = |openers: &[&str]| openers.iter().any(|o| rest.starts_with(o));
    starts(PERSONAL) || (asks == Asks::Reason && starts(CONCLUDING))
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pronoun_for_a_person_leans_on_the_sentence_naming_them() {
        let s = "Moreover, he expressed his opposition to the purchase of more MBS.";
        assert!(leans_on_previous(s, Asks::Vote));
        assert!(leans_on_previous(
            "She preferred to hold the rate.",
            Asks::Decision
        ));
        assert!(!leans_on_previous(
            "Mr. Lacker dissented because he believed that more stimulus would not help.",
            Asks::Vote
        ));
        // "The" is not "They"; "Heightened" is not "He".
        assert!(!leans_on_previous(
            "Heightened uncertainty weighed on spending.",
            Asks::Vote
        ));
    }

    #[test]
    fn a_conclusion_leans_on_its_reason_only_when_the_question_asks_why() {
        let s = "Consequently, it would not be appropriate to specify a fixed goal for employment.";
        assert!(leans_on_previous(s, Asks::Reason));
        assert!(!leans_on_previous(s, Asks::Decision));
        assert!(leans_on_previous(
            "Against this backdrop, all participants agreed that it was appropriate to raise the target range.",
            Asks::Reason
        ));
        assert!(!leans_on_previous(
            "Theirs was a minority view.",
            Asks::Reason
        ));
    }
}
