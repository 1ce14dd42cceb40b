//! Sentences that lean on the one before them. "Moreover, he expressed his opposition …" names
//! no one, and "Consequently, it would not be appropriate …" gives a conclusion whose reason
//! is the sentence before; shown alone, neither answers. Such a sentence brings the sentence
//! before it in its passage into the answer. The other way round, a dissent ("Mr. Plosser
//! dissented for two reasons.") is often only the heading of the dissenter's view, which the
//! sentences after it give ("He believed that …", "In his view, …"): asked about a vote, those
//! follow it.

use crate::orchestrator::asks::Asks;

/// Connectives that turn against what was said before without pointing at anything in it; with
/// [`FURTHER`], what follows them is read for a pronoun.
const CONTRASTING: &[&str] = &["However, ", "Nonetheless, ", "Nevertheless, ", "Still, "];

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

/// Openers of the other half of a contrast the sentence before began ("If progress is faster,
/// increases come sooner. Conversely, if it is slower, they come later."): each half needs the
/// other.
const CONVERSE: &[&str] = &[
    "Rather,",
    "Conversely",
    "On the other hand",
    "By contrast",
    "In contrast",
];

/// Whether `sentence` opens the other half of the contrast the sentence before it began.
pub fn completes_previous(sentence: &str) -> bool {
    let s = sentence.trim_start_matches(['"', '\u{201C}', ' ']);
    CONVERSE.iter().any(|o| s.starts_with(o))
}

/// Whether `sentence` needs the sentence before it to answer a question asking `asks`: a
/// pronoun for one person, or the other half of a contrast, always does; a conclusion does when
/// the question asks why.
pub fn leans_on_previous(sentence: &str, asks: Asks) -> bool {
    if completes_previous(sentence) {
        return true;
    }
    let s = sentence.trim_start_matches(['"', '\u{201C}', ' ']);
    let rest = FURTHER
        .iter()
        .chain(CONTRASTING)
        .find_map(|c| s.strip_prefix(c))
        .map(capitalised)
        .unwrap_or_else(|| s.to_string());
    let starts = |openers: &[&str]| openers.iter().any(|o| rest.starts_with(o));
    // Asked why, "Moreover, …" gives a further reason: the first is the sentence before.
    let further = s.len() != rest.len() && FURTHER.iter().any(|o| s.starts_with(o));
    starts(PERSONAL)
        || (asks == Asks::Reason && (starts(CONCLUDING) || further || names_its_result(s)))
}

/// Whether `sentence` speaks of "the resulting …" of what the sentence before told ("Most
/// members thought that the resulting tightening of financial conditions would be
/// inappropriate"): asked why, what it results from is that sentence.
fn names_its_result(sentence: &str) -> bool {
    sentence.contains("the resulting ") || sentence.starts_with("The resulting ")
}

/// Whether `sentence`, just after a chosen one in its document, belongs with it in an answer
/// asking `asks`: the other half of its contrast, a list of what it named, its particulars
/// ("In particular, …"), or, asked why, the members' grounds for it.
pub fn belongs_after_previous(sentence: &str, asks: Asks) -> bool {
    completes_previous(sentence)
        || lists_for_previous(sentence)
        || particularises_previous(sentence)
        || (asks == Asks::Reason && gives_their_grounds(sentence))
}

/// Whether `sentence` lists what the sentence before it named in general ("… most of the
/// special liquidity facilities will expire on February 1. These facilities include the …",
/// "… risks to the outlook. Those included …"): the list is the detail a reader of the one
/// before wants; so does what it takes into account ("… the Committee will assess realized and
/// expected economic conditions … This assessment will take into account a wide range of
/// information, including …"). "Such …" is left out: "Such investments may include …" is the
/// directive's boilerplate, not a list.
pub fn lists_for_previous(sentence: &str) -> bool {
    let words: Vec<&str> = sentence.split_whitespace().take(6).collect();
    matches!(words.first(), Some(&("These" | "Those" | "This")))
        && (words.windows(2).any(|w| {
            // "These statements would be included in the press release" lists nothing.
            matches!(w[1], "include" | "includes" | "included") && !matches!(w[0], "be" | "been")
        }) || words.windows(3).any(|w| {
            matches!(w[0], "take" | "takes" | "took") && w[1] == "into" && w[2] == "account"
        }))
}

/// Whether `sentence` gives the particulars of what the sentence before it said in general
/// ("Some members noted a mismatch between demand and supply for certain types of labor. In
/// particular, unskilled workers were said to be having considerable difficulty …", "members
/// agreed … to maintain the existing stance. In particular, they agreed to keep the target
/// range at …"): the particulars are what a reader of the one before wants.
pub fn particularises_previous(sentence: &str) -> bool {
    let s = sentence.trim_start_matches(['"', '\u{201C}', ' ']);
    ["In particular,", "Specifically,"]
        .iter()
        .any(|o| s.starts_with(o))
}

/// Whether `sentence` gives the grounds of the members' or participants' conclusion in the
/// sentence before ("… concluded that an easing action was not desirable. They noted that not
/// enough time had elapsed …"): asked why, it follows that conclusion.
pub fn gives_their_grounds(sentence: &str) -> bool {
    [
        "They noted",
        "They judged",
        "They pointed",
        "They observed",
        "They saw",
        "They believed",
        "They felt",
        "They emphasized",
        "In their view",
    ]
    .iter()
    .any(|o| sentence.starts_with(o))
}

/// Connectives that add a further point to the one before.
const FURTHER: &[&str] = &[
    "Moreover, ",
    "Furthermore, ",
    "In addition, ",
    "Also, ",
    "Finally, ",
];

/// Whether `sentence` records a member's dissent ("Mr. X dissented because …").
pub fn is_dissent(sentence: &str) -> bool {
    sentence.contains(" dissented")
}

/// Whether `sentence` is a roll call ("Voting for this action: …", "Votes against this action:
/// Mr. Fisher."): it names members without saying what they thought.
pub fn records_votes(sentence: &str) -> bool {
    sentence.starts_with("Voting ") || sentence.starts_with("Votes ")
}

/// Whether `sentence` speaks of one person by pronoun ("he", "his", "She" …).
fn speaks_of_one_person(sentence: &str) -> bool {
    sentence.split(|c: char| !c.is_alphanumeric()).any(|w| {
        matches!(
            w,
            "he" | "she" | "his" | "her" | "He" | "She" | "His" | "Her"
        )
    })
}

/// Whether `sentence` gives the preference of members the minutes do not name ("Two members
/// preferred to maintain the current target range", "One member dissented from the policy
/// decision"): a dissent of the policy discussion, whose grounds follow ("These members noted
/// …", "In this participant's view, …").
pub fn is_unnamed_preference(sentence: &str) -> bool {
    // "However, a couple of members preferred …" is as much a minority's preference.
    let s = CONTRASTING
        .iter()
        .find_map(|c| sentence.strip_prefix(c))
        .unwrap_or(sentence);
    let counted = [
        "One member ",
        "Two members ",
        "Three members ",
        "Four members ",
        "A couple of members ",
        "a couple of members ",
        "A few members ",
        "a few members ",
    ]
    .iter()
    .any(|o| s.starts_with(o));
    counted && (sentence.contains(" preferred") || is_dissent(sentence))
}

/// How the minutes go on with what unnamed members preferred: they refer back to them.
const UNNAMED_REFERENCES: &[&str] = &[
    "these members",
    "those members",
    "this member",
    "that member",
    "this participant",
];

/// Whether `sentence`, just after `dissent` in its document, goes on with the dissenter's
/// view: it speaks of one person by pronoun ("He judged …", "Although risks had increased, she
/// believed …", "In his view, …") or by the title and name the dissent gave them ("Mr. Hoenig
/// was concerned …"), or adds a further point ("In addition, the yield curve had flattened …"),
/// and records no dissent of its own.
pub fn continues_dissent(sentence: &str, dissent: &str) -> bool {
    let further = FURTHER.iter().any(|o| sentence.starts_with(o));
    let personal = speaks_of_one_person(sentence);
    let named = dissenter_names(dissent).iter().any(|name| {
        SINGLE_TITLES
            .iter()
            .any(|t| sentence.contains(&format!("{t} {name}")))
    });
    let lower = sentence.to_lowercase();
    let unnamed = is_unnamed_preference(dissent)
        && (UNNAMED_REFERENCES.iter().any(|r| lower.contains(r))
            || sentence.starts_with("They ")
            || sentence.starts_with("In their view"));
    (personal || named || further || unnamed) && !is_dissent(sentence)
}

/// Whether `sentence`, in the paragraph of a dissent or of a dissenter's own view, goes on
/// with the view of the dissenters `names` ("Mr. Lacker dissented because … The inflation
/// outlook had deteriorated …"): the minutes give one member's view a paragraph, so any sentence
/// of it does, unless it is another dissent or vote, the Board's action or the meeting's
/// procedure, names another member by title, or speaks for the Committee or its members ("The
/// Committee then turned to …": the paragraph moved on).
pub fn goes_on_in_paragraph(sentence: &str, names: &[&str]) -> bool {
    // The minutes run a dissenter's view on into the Board's action and the meeting's
    // procedure, with no paragraph between.
    let votes = records_votes(sentence)
        || sentence.starts_with("It was agreed")
        || sentence.contains(" voted ")
        || sentence.contains("Board of Governors");
    let collective = COLLECTIVE.iter().any(|o| sentence.starts_with(o));
    !is_dissent(sentence) && !votes && !names_another(sentence, names) && !collective
}

/// Whether `sentence` names by title a member other than `names` ("Ms. George judged …").
pub fn names_another(sentence: &str, names: &[&str]) -> bool {
    dissenter_names(sentence).iter().any(|n| !names.contains(n))
}

/// Openers of a sentence that speaks for the Committee or its members, not for one of them.
const COLLECTIVE: &[&str] = &[
    "The Committee",
    "Committee ",
    "Members",
    "The members",
    "All members",
    "Most members",
    "Participants",
    "The participants",
    "All participants",
    "Most participants",
];

/// Whether `sentence` adds to the view of the one person the sentence before it gave ("It was
/// also his position that …", "He also noted …"): a pronoun for them and "also".
pub fn adds_to_their_view(sentence: &str) -> bool {
    let also = sentence
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(6)
        .any(|w| w == "also");
    speaks_of_one_person(sentence) && also && !is_dissent(sentence)
}

/// Titles the minutes give one member by.
pub(super) const SINGLE_TITLES: &[&str] = &["Mr.", "Ms.", "Mrs.", "President", "Governor"];

/// The surnames a dissent gives after a title ("Messrs. Evans and Kashkari dissented" gives
/// Evans, Kashkari; "President George dissented" gives George), or as the subject of
/// "dissented" (a passage may begin at "Hoenig dissented", its title left in the one before).
pub(super) fn dissenter_names(dissent: &str) -> Vec<&str> {
    let words: Vec<&str> = dissent.split_whitespace().collect();
    let mut names = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if *w == "dissented" {
            // The subject, a list of names: "Fisher, Kocherlakota, and Plosser dissented".
            for subject in words[..i].iter().rev() {
                if *subject == "and" {
                    continue;
                }
                let name = subject.trim_end_matches(',');
                if !name.chars().next().is_some_and(char::is_uppercase) || name.ends_with('.') {
                    break;
                }
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        let title = SINGLE_TITLES.contains(w)
            || matches!(*w, "Messrs." | "Mses." | "Presidents" | "Governors");
        if !title {
            continue;
        }
        for next in &words[i + 1..] {
            if *next == "and" {
                continue;
            }
            let name = next
                .trim_end_matches([',', '.', ';'])
                .trim_end_matches("'s")
                .trim_end_matches("\u{2019}s");
            if !name.chars().next().is_some_and(char::is_uppercase) {
                break;
            }
            names.push(name);
            if name.len() != next.len() && !next.ends_with(',') {
                break;
            }
        }
    }
    names
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
    fn a_record_of_the_vote_is_told_from_a_view() {
        assert!(records_votes("Voting against the action was Jeffrey M. Lacker, who preferred to raise the target range."));
        assert!(records_votes("Votes against this action: Mr. Hoenig."));
        assert!(!records_votes(
            "Mr. Lacker dissented because he preferred to raise the target range."
        ));
        assert!(!records_votes(
            "Recent global developments may restrain economic activity somewhat."
        ));
    }

    #[test]
    fn a_dissenters_paragraph_goes_on_until_it_turns_to_others() {
        let lacker = ["Lacker"];
        assert!(goes_on_in_paragraph(
            "The inflation outlook had deteriorated in the intermeeting period.",
            &lacker
        ));
        for other in [
            "Ms. George judged that another step was appropriate.",
            "The Committee then turned to a discussion of its communications.",
            "Consistent with the Committee's decision, the Board of Governors took no action.",
            "It was agreed that the next meeting would be held on December 13-14, 2016.",
            "Mr. Fisher dissented because he preferred no action.",
            "Voting against this action: Mr. Lacker.",
        ] {
            assert!(!goes_on_in_paragraph(other, &lacker), "{other}");
        }
        assert!(goes_on_in_paragraph(
            "In Mr. Lacker's view, the risks had grown.",
            &lacker
        ));
    }

    #[test]
    fn also_with_a_pronoun_adds_to_their_view() {
        assert!(adds_to_their_view(
            "It was also his position that a cut could increase volatility."
        ));
        assert!(adds_to_their_view(
            "He also noted that inflation was rising."
        ));
        assert!(!adds_to_their_view(
            "It was also noted that inflation was rising."
        ));
        assert!(!adds_to_their_view(
            "He judged that policy was stimulative."
        ));
    }

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
    fn a_list_of_what_the_sentence_before_named_is_its_detail() {
        assert!(lists_for_previous(
            "These facilities include the Commercial Paper Funding Facility."
        ));
        assert!(lists_for_previous(
            "Those factors included the increasing spread of the coronavirus."
        ));
        assert!(lists_for_previous(
            "This toolkit included threshold-based guidance."
        ));
        assert!(lists_for_previous(
            "This assessment will take into account a wide range of information."
        ));
        // The directive's boilerplate, a sentence being included somewhere, and a list that
        // does not point back are not.
        assert!(!lists_for_previous(
            "Such investments may include buying or selling outright obligations."
        ));
        assert!(!lists_for_previous(
            "These statements would be included in the press release."
        ));
        assert!(!lists_for_previous(
            "The facilities include the Primary Dealer Credit Facility."
        ));
    }

    #[test]
    fn their_grounds_open_with_what_they_noted_or_judged() {
        assert!(gives_their_grounds(
            "They noted that not enough time had elapsed since the end of the war."
        ));
        assert!(gives_their_grounds(
            "In their view, the risks were balanced."
        ));
        // Agreeing or going on is not giving grounds; nor is one member's view.
        assert!(!gives_their_grounds(
            "They agreed to keep the target unchanged."
        ));
        assert!(!gives_their_grounds("He noted that inflation had risen."));
    }

    #[test]
    fn a_dissenters_view_goes_on_in_the_sentences_that_speak_of_them() {
        let dissent = "Mr. Plosser dissented for two reasons.";
        assert!(is_dissent(dissent));
        assert!(continues_dissent(
            "He believed that the Committee's policy guidance should be more data dependent.",
            dissent
        ));
        assert!(continues_dissent(
            "Although risks to the global economy had increased, she believed that policy should respond.",
            dissent
        ));
        assert!(continues_dissent(
            "In his view, inflation would rise.",
            dissent
        ));
        // The dissenter named again, by the title the dissent gave.
        assert!(continues_dissent(
            "Mr. Plosser was concerned that the guidance limited the Committee's flexibility.",
            dissent
        ));
        let two = "Messrs. Evans and Kashkari dissented because they preferred to hold.";
        assert_eq!(dissenter_names(two), vec!["Evans", "Kashkari"]);
        // Every name of a list that dissented.
        assert!(continues_dissent(
            "Mr. Fisher felt that nonmonetary factors were restraining growth.",
            "Fisher, Kocherlakota, and Plosser dissented because they preferred the old wording."
        ));
        // A dissent whose title was cut off still names its subject.
        assert!(continues_dissent(
            "Mr. Hoenig was concerned about imbalances.",
            "Hoenig dissented because he believed the guidance no longer advisable."
        ));
        assert!(continues_dissent(
            "In Mr. Evans's view, it was important to pause.",
            two
        ));
        // Members the minutes do not name are referred back to, not named.
        let unnamed = "Two members preferred to maintain the current target range.";
        assert!(is_unnamed_preference(unnamed));
        assert!(is_unnamed_preference(
            "One member dissented from the policy decision, judging that accommodation was too high."
        ));
        assert!(!is_unnamed_preference(
            "Two members said that conditions could justify stronger action."
        ));
        // A minority counted in words, after a turn against the majority, is as unnamed.
        let couple = "However, a couple of members preferred to keep the quantitative thresholds.";
        assert!(is_unnamed_preference(couple));
        assert!(continues_dissent(
            "One of these members argued that the thresholds had served the Committee well.",
            couple
        ));
        assert!(!is_unnamed_preference(
            "However, a couple of participants preferred to keep the thresholds."
        ));
        assert!(continues_dissent(
            "In explaining their policy views, those members noted that the data had been positive.",
            unnamed
        ));
        assert!(!continues_dissent(
            "Those members noted that the economy was strong.",
            dissent
        ));
        // A further point in the dissenter's paragraph.
        assert!(continues_dissent(
            "In addition, the yield curve had flattened.",
            two
        ));
        // Another member's dissent is not this one's view; nor is a sentence about the economy
        // or another member.
        assert!(!continues_dissent(
            "Mr. Kocherlakota dissented because he believed that the statement was too hawkish.",
            dissent
        ));
        assert!(!continues_dissent(
            "The Committee's projections were little changed; the heron's habitat shrank.",
            dissent
        ));
        assert!(!continues_dissent(
            "Mr. Lacker noted that the projections were little changed.",
            dissent
        ));
    }

    #[test]
    fn a_further_reason_leans_on_the_first_when_the_question_asks_why() {
        let s = "Moreover, a larger cut might be read as a sign of more concern.";
        assert!(leans_on_previous(s, Asks::Reason));
        assert!(!leans_on_previous(s, Asks::Decision));
        assert!(!leans_on_previous(
            "However, a larger cut might be read as a sign of more concern.",
            Asks::Reason
        ));
    }

    #[test]
    fn the_other_half_of_a_contrast_leans_on_the_first() {
        let s = "Conversely, if progress proves slower than expected, increases are likely later.";
        assert!(completes_previous(s));
        assert!(leans_on_previous(s, Asks::Decision));
        assert!(!completes_previous(
            "Consumer spending rose; by contrast, investment fell."
        ));
        // After a denial ("… they do not pose a more persistent threat."), what is so instead.
        let rather =
            "Rather, monetary policy accommodation is providing ongoing support to activity.";
        assert!(completes_previous(rather));
        assert!(belongs_after_previous(rather, Asks::Reason));
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

    #[test]
    fn the_result_of_what_was_said_before_leans_on_it_when_the_question_asks_why() {
        let s = "Most members thought that the resulting tightening of financial conditions would be inappropriate.";
        assert!(leans_on_previous(s, Asks::Reason));
        assert!(!leans_on_previous(s, Asks::Description));
        assert!(!leans_on_previous(
            "Most members thought that a tightening of financial conditions would be inappropriate.",
            Asks::Reason
        ));
    }
}
