//! One dissenter asked about by name. "What reasons did Neel Kashkari give for voting against?"
//! is not answered by the joint dissent ("Messrs. Evans and Kashkari dissented because they
//! preferred to hold") and the roll call: the minutes give each dissenter's own view after
//! them ("In Mr. Kashkari's view, …", "Mr. Plosser cited …"). Such a question brings the
//! dissent naming the member and the best sentence of the member's own.

use super::anaphora::{dissenter_names, is_dissent, records_votes, SINGLE_TITLES};
use super::choose::roll_call_names;

/// The dissenter the question names, if it names one: a word of the question that a dissent or
/// a roll call among `sentences` gives as a dissenter's surname (matched in any case: the
/// planner's question is lower case), as the documents spell it.
pub fn asked_about<'a>(question: &str, sentences: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut dissenters: Vec<&str> = Vec::new();
    for s in sentences {
        if is_dissent(s) {
            dissenters.extend(dissenter_names(s));
        }
        if let Some(names) = roll_call_names(s) {
            dissenters.extend(names);
        }
    }
    let words: Vec<String> = question
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .collect();
    dissenters
        .into_iter()
        .find(|d| d.len() >= 3 && words.contains(&d.to_lowercase()))
        .map(str::to_string)
}

/// Whether `sentence` speaks of member `name` alone, by title ("Mr. Kashkari", "President
/// George"), possessive ("Kashkari's") or as its subject ("Plosser cited …", its title left in
/// the passage before); a roll call does not.
pub fn speaks_for(sentence: &str, name: &str) -> bool {
    if records_votes(sentence) {
        return false;
    }
    let whole = |at: &str| {
        sentence.match_indices(at).any(|(i, _)| {
            !sentence[i + at.len()..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric)
        })
    };
    SINGLE_TITLES.iter().any(|t| whole(&format!("{t} {name}")))
        || sentence.contains(&format!("{name}'s"))
        || sentence.contains(&format!("{name}\u{2019}s"))
        || sentence.starts_with(&format!("{name} "))
}

/// Whether `sentence` gives the view of one or more of the dissenters `names`: it names one of
/// them after a title ("Overall, Mr. Fisher viewed …", "both Messrs. Fisher and Plosser felt …")
/// or says whose view it is as the dissent would ("in his view" or an opening "She …" of one
/// dissenter, "in their view" of several), and is neither a dissent nor a roll call.
pub fn gives_dissenters_view(sentence: &str, names: &[&str]) -> bool {
    let lower = sentence.to_lowercase();
    let pronoun = match names.len() {
        0 => false,
        // One dissenter is the "he" or "she" that opens a sentence after their dissent.
        1 => {
            lower.contains("in his view")
                || lower.contains("in her view")
                || ["He ", "She "].iter().any(|o| sentence.starts_with(o))
        }
        _ => lower.contains("in their view"),
    };
    !is_dissent(sentence)
        && !records_votes(sentence)
        && (pronoun || dissenter_names(sentence).iter().any(|n| names.contains(n)))
}

/// Whether `sentence` is a dissent that names member `name` among its dissenters.
pub fn dissent_by(sentence: &str, name: &str) -> bool {
    is_dissent(sentence) && dissenter_names(sentence).contains(&name)
}

/// Whether `sentence` gives member `name`'s own view: it speaks of them alone and is neither
/// their dissent nor a roll call.
pub fn own_view(sentence: &str, name: &str) -> bool {
    speaks_for(sentence, name) && !is_dissent(sentence)
}

#[cfg(test)]
mod tests {
    use super::*;

    const JOINT: &str = "Messrs. Evans and Kashkari dissented because they preferred to hold.";
    const ROLL: &str = "Voting against this action: Charles L. Evans and Neel Kashkari.";

    #[test]
    fn the_member_asked_about_is_a_dissenter_the_question_names() {
        let q = "What reasons did Neel Kashkari give for voting against the December 2017 hike?";
        assert_eq!(
            asked_about(q, [JOINT].into_iter()).as_deref(),
            Some("Kashkari")
        );
        assert_eq!(
            asked_about(q, [ROLL].into_iter()).as_deref(),
            Some("Kashkari")
        );
        // Named, but not a dissenter of these sentences.
        let other = "Mr. Lacker dissented because he preferred no purchases.";
        assert_eq!(asked_about(q, [other].into_iter()), None);
        // The planner's lower-case question names them too.
        assert_eq!(
            asked_about("why did neel kashkari dissent", [JOINT].into_iter()).as_deref(),
            Some("Kashkari")
        );
        // A dissenter, not named by the question.
        assert_eq!(
            asked_about("Who dissented in December 2017?", [JOINT].into_iter()),
            None
        );
    }

    #[test]
    fn a_members_own_view_names_them_alone_and_is_not_their_dissent() {
        assert!(own_view(
            "In Mr. Kashkari's view, wage growth had not picked up.",
            "Kashkari"
        ));
        assert!(own_view(
            "Plosser cited the recent rapid growth of monetary aggregates.",
            "Plosser"
        ));
        assert!(own_view("Mr. Hoenig also was concerned.", "Hoenig"));
        assert!(!own_view(JOINT, "Kashkari"));
        assert!(!own_view(ROLL, "Kashkari"));
        assert!(!own_view(
            "Mr. Evans noted that inflation was low.",
            "Kashkari"
        ));
        // "Mr. George" is not "Mr. Georgeson".
        assert!(!own_view("Mr. Georgeson noted the risks.", "George"));
        assert!(dissent_by(JOINT, "Kashkari"));
    }

    #[test]
    fn a_dissenters_view_names_one_of_them_by_title() {
        let both = ["Fisher", "Plosser"];
        assert!(gives_dissenters_view(
            "Overall, Mr. Fisher viewed inflation expectations as less well anchored.",
            &both
        ));
        assert!(gives_dissenters_view(
            "To help, both Messrs. Fisher and Plosser felt the Committee should act.",
            &both
        ));
        // Their dissent, their roll call and another member's view are not it.
        assert!(!gives_dissenters_view(
            "Messrs. Fisher and Plosser dissented because they preferred no change.",
            &both
        ));
        assert!(!gives_dissenters_view(
            "Votes against this action: Mr. Fisher.",
            &both
        ));
        assert!(!gives_dissenters_view(
            "Mr. Kohn noted that inflation was low.",
            &both
        ));
        // Whose view it is, as the dissent would say it: "their" of two, "his" of one.
        let worry = "The more worrisome development in their view was the outlook for inflation.";
        assert!(gives_dissenters_view(worry, &both));
        assert!(!gives_dissenters_view(worry, &["Fisher"]));
        assert!(gives_dissenters_view(
            "In his view, the outlook had improved.",
            &["Fisher"]
        ));
        // A lone dissenter is the "She" that opens a later sentence; of two, "she" is one.
        let she = "She believed that policy should respond by gradually removing accommodation.";
        assert!(gives_dissenters_view(she, &["George"]));
        assert!(!gives_dissenters_view(she, &both));
        assert!(!dissent_by(
            "Ms. George dissented because she preferred a hike.",
            "Kashkari"
        ));
    }
}
