//! What synthesize measures of each candidate sentence: its likeness to the question, the query
//! terms it holds, its passage's rank, how strongly it offers what is asked, and the rules that
//! set sentences aside (boilerplate, procedure, a clause the question sets aside, the minutes'
//! review, what the previous meeting already said). The hand-weighted score reads them; so does
//! the learned ranker ([`super::ranker`]).

use super::cues;
use super::meeting::previous_meeting_sentences;
use super::{is_minutes, with_context, Candidate, MAX_OVERLAP};
use crate::index::{Hit, Retriever};
use crate::orchestrator::asks::{self, Asks};
use crate::orchestrator::graph::plan_rules::series_of;
use crate::orchestrator::relevance::{coverage, scaled_cosine};
use crate::orchestrator::text::{jaccard, sentences};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// Weight of how strongly a sentence offers what the question asks for (see [`cues::cue`]).
const W_CUE: f64 = 0.3;
/// Taken off a sentence repeated in passages of two or more other dates (boilerplate), unless
/// it offers exactly what the question asks for.
const BOILERPLATE_PENALTY: f64 = 0.15;
/// Added to the first sentence of a document that fully offers what is asked: a statement
/// gives its decision before it elaborates.
const FIRST_CUE_BONUS: f64 = 0.05;
/// Taken off a sentence about a meeting's procedure unless the question asks about it.
const PROCEDURAL_PENALTY: f64 = 0.3;
/// Taken off a sentence about what a "besides …" clause sets aside.
const BESIDES_PENALTY: f64 = 0.2;
/// Taken off a sentence the previous meeting already said, when the question asks what was new.
const CARRIED_OVER_PENALTY: f64 = 0.4;
/// Added to a reason given within about two sentences of the action the question names.
const NEAR_ACTION_BONUS: f64 = 0.1;
const NEAR_ACTION_BYTES: usize = 1000;
/// Taken off a sentence of the first `REVIEW_SHARE` of the minutes when asked why (the staff's
/// and the markets' review, before the policy discussion).
const REVIEW_PENALTY: f64 = 0.1;
const REVIEW_SHARE: f64 = 0.5;
/// Taken off a sentence of another series of documents than the one the question names.
const OTHER_SERIES_PENALTY: f64 = 0.2;

/// What one candidate sentence is measured by.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Signals {
    /// Dense similarity to the question (dot product of unit vectors); `None` without a model.
    pub cos: Option<f64>,
    /// Share of the query terms' weight the sentence (with its date and section) holds.
    pub coverage: f64,
    /// `1 / (rank of its passage + 1)`.
    pub prior: f64,
    /// How strongly it offers what is asked ([`super::cues::cue`], after the question's own
    /// adjustments).
    pub cue: f64,
    /// Said in passages of two or more other dates, or (asked why or how, about one meeting) by
    /// the meeting before in the same words.
    pub repeated: bool,
    /// The first sentence of its document that fully offers what is asked.
    pub first_cue: bool,
    /// About what a "besides …" clause of the question sets aside.
    pub besides: bool,
    /// About a meeting's procedure, which the question does not ask about.
    pub procedural: bool,
    /// Of another series of documents than the one the question names ("per the minutes").
    pub other_series: bool,
    /// Asked why: in the first half of the minutes (the review of markets and the economy).
    pub review: bool,
    /// Asked what was new: the previous meeting already said it.
    pub carried_over: bool,
    /// Asked why: a reason within about two sentences of the sentence most like the question.
    pub near_action: bool,
    /// Of the minutes.
    pub minutes: bool,
    /// Where in its document it stands, as a share of the document's length.
    pub position: f64,
    /// Its length in words.
    pub words: usize,
}

/// What the signals of a question's candidates are measured against.
pub struct Setting<'a> {
    pub retriever: &'a dyn Retriever,
    /// The question as the user asked it in the conversation.
    pub question: &'a str,
    /// The text searched with (the planner's and reformulation's words included).
    pub query: &'a str,
    pub asks: Asks,
    /// The query's terms, without the institution's name and the question's framing.
    pub q_terms: &'a [String],
    pub query_vec: Option<&'a [f32]>,
    /// The meeting the question is about, when it is about one.
    pub meeting: Option<crate::corpus::Date>,
    /// The passages the candidates come from.
    pub hits: &'a [Hit],
    /// Every passage retrieval ranked (for boilerplate: sentences said at other dates).
    pub ranked: &'a [Hit],
}

/// The signals of every candidate, in order.
pub fn measure(s: &Setting, cands: &[Candidate]) -> Vec<Signals> {
    let retriever = s.retriever;
    let hits = s.hits;
    let excluded = excluded_terms(retriever, s.question);
    // "Apart from cutting rates, …": the sentence of the rate decision is what is set aside,
    // whatever its words ("decided today to lower the target range …").
    let rate_set_aside =
        asks::set_aside(&s.question.to_lowercase()).is_some_and(asks::names_rate_decision);
    let mut repeated = boilerplate(retriever, s.ranked, hits, cands);
    // Asked why, or how something was seen, at one meeting: what the meeting before already
    // said in the same words is standing language, not this meeting's answer.
    if let Some(date) = s
        .meeting
        .filter(|_| matches!(s.asks, Asks::Reason | Asks::Description))
    {
        let earlier = previous_meeting_sentences(retriever, s.query, s.query_vec, date);
        for (r, c) in repeated.iter_mut().zip(cands) {
            *r = *r || earlier.iter().any(|e| jaccard(&c.text, e) > MAX_OVERLAP);
        }
    }
    let firsts = first_cues(cands, hits);
    let asks_procedure = asks_about_procedure(s.question);
    let term_sets: Vec<HashSet<String>> = cands
        .iter()
        .map(|c| {
            retriever
                .analyze(&format!(
                    "{} {}",
                    with_context(&c.text, &hits[c.hit]),
                    c.expansions
                ))
                .into_iter()
                .collect()
        })
        .collect();
    let weights = rarity(s.q_terms, &term_sets);
    // "According to the minutes, …": a sentence of a document of another series (the
    // statement of the same day) answers only if the minutes do not.
    let minutes_named = series_of(&s.question.to_lowercase()).as_deref() == Some("minutes")
        && cands.iter().any(|c| is_minutes(&hits[c.hit]));
    let lengths: HashMap<String, usize> = retriever
        .documents()
        .into_iter()
        .filter(|d| hits.iter().any(|h| h.document == d.document))
        .map(|d| (d.document, d.length))
        .collect();
    let carried = carried_over(s, cands);
    let mut out: Vec<Signals> = cands
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let terms = &term_sets[i];
            let h = &hits[c.hit];
            let length = lengths.get(&h.document).copied().unwrap_or(0);
            let position = if length > 0 {
                c.position as f64 / length as f64
            } else {
                0.0
            };
            Signals {
                cos: match (&c.vector, s.query_vec) {
                    (Some(v), Some(q)) => Some(f64::from(crate::index::dense::dot(v, q))),
                    _ => None,
                },
                coverage: weighted_coverage(s.q_terms, &weights, terms),
                prior: 1.0 / (c.hit as f64 + 1.0),
                cue: c.cue,
                repeated: repeated[i],
                first_cue: firsts.contains(&i),
                besides: (!excluded.is_empty() && coverage(&excluded, terms) >= 0.5)
                    || (rate_set_aside && cues::decides_rate(&c.text)),
                procedural: c.procedural && !asks_procedure,
                other_series: minutes_named && !is_minutes(h),
                // Asked why, the minutes' first half reviews the markets and the economy; the
                // reasons for the decision come in the Committee's discussion of policy after it.
                review: s.asks == Asks::Reason
                    && is_minutes(h)
                    && length > 0
                    && (c.position as f64) < REVIEW_SHARE * length as f64,
                carried_over: carried[i],
                near_action: false,
                minutes: is_minutes(h),
                position,
                words: c.text.split_whitespace().count(),
            }
        })
        .collect();
    if s.asks == Asks::Reason {
        let bases: Vec<f64> = out.iter().map(|g| base(s.asks, g)).collect();
        for i in near_the_action(cands, &bases, hits) {
            out[i].near_action = true;
        }
    }
    out
}

/// The hand-weighted score: likeness, coverage and rank blended, then how strongly the sentence
/// offers what is asked, then the rules' bonuses and penalties.
pub fn hand_score(asks: Asks, g: &Signals) -> f64 {
    let w_cue = if asks == Asks::Other { 0.0 } else { W_CUE };
    let mut score = (1.0 - w_cue) * base(asks, g) + w_cue * g.cue;
    // A decision can be worded as at other meetings and still be this one's; a reason or a
    // characterisation said at every meeting ("seeks to foster maximum employment") is not
    // what this meeting's answer is.
    if g.repeated && (g.cue < 1.0 || matches!(asks, Asks::Reason | Asks::Description)) {
        score -= BOILERPLATE_PENALTY;
    }
    if g.first_cue && w_cue > 0.0 {
        score += FIRST_CUE_BONUS;
    }
    if g.besides {
        score -= BESIDES_PENALTY;
    }
    if g.procedural {
        score -= PROCEDURAL_PENALTY;
    }
    if g.other_series {
        score -= OTHER_SERIES_PENALTY;
    }
    if g.review {
        score -= REVIEW_PENALTY;
    }
    if g.carried_over {
        score -= CARRIED_OVER_PENALTY;
    }
    if g.near_action {
        score += NEAR_ACTION_BONUS;
    }
    score
}

/// Likeness, coverage and rank, without the cue. Asked why, the question's own words count for
/// half: they name the action, seldom its reason.
fn base(asks: Asks, g: &Signals) -> f64 {
    let cov = if asks == Asks::Reason {
        0.5 + 0.5 * g.coverage
    } else {
        g.coverage
    };
    match g.cos {
        Some(cos) => 0.45 * scaled_cosine(cos) + 0.35 * cov + 0.2 * g.prior,
        None => 0.6 * cov + 0.4 * g.prior,
    }
}

/// "What was new": the candidates the previous meeting already said (asked for new amounts or
/// dates, the same sentence with other figures is new).
fn carried_over(s: &Setting, cands: &[Candidate]) -> Vec<bool> {
    let Some(date) = s
        .meeting
        .filter(|_| s.asks != Asks::Rate && asks::asks_new(s.question))
    else {
        return vec![false; cands.len()];
    };
    let earlier = previous_meeting_sentences(s.retriever, s.query, s.query_vec, date);
    let figures_matter = matches!(s.asks, Asks::Amount | Asks::Schedule);
    cands
        .iter()
        .map(|c| {
            earlier.iter().any(|e| {
                jaccard(&c.text, e) > MAX_OVERLAP
                    && (!figures_matter || figures_and_months(&c.text) == figures_and_months(e))
            })
        })
        .collect()
}

/// Whether the question asks about a meeting's procedure (its minutes, the next meeting).
fn asks_about_procedure(question: &str) -> bool {
    is_procedural(question) || crate::orchestrator::asks::asks_next_meeting_date(question) || {
        let q = question.to_lowercase();
        [
            "next meeting",
            "following meeting",
            "meeting following",
            "meeting after",
            "approve the minutes",
            "date of the",
        ]
        .iter()
        .any(|m| q.contains(m))
            || (q.contains("date") && q.contains("meeting"))
    }
}

/// How much each query term tells the sentences apart: a term most of them hold (the
/// meeting's month, "committee") says little; one few hold ("referendum") says much.
fn rarity(q_terms: &[String], sets: &[HashSet<String>]) -> Vec<f64> {
    let n = sets.len() as f64;
    q_terms
        .iter()
        .map(|t| {
            let df = sets.iter().filter(|s| s.contains(t)).count() as f64;
            if df == 0.0 {
                0.0
            } else {
                ((n + 1.0) / df).ln()
            }
        })
        .collect()
}

/// Share of the query's weight a sentence's terms hold.
fn weighted_coverage(q_terms: &[String], weights: &[f64], terms: &HashSet<String>) -> f64 {
    let total: f64 = weights.iter().sum();
    if total <= 0.0 {
        return 0.0;
    }
    q_terms
        .iter()
        .zip(weights)
        .filter(|(t, _)| terms.contains(*t))
        .map(|(_, w)| w)
        .sum::<f64>()
        / total
}

/// A reason is given beside the action it explains: the candidates that offer a reason within
/// about two sentences of the one most like the question (by `bases`, without the cue), in its
/// document.
fn near_the_action(cands: &[Candidate], bases: &[f64], hits: &[Hit]) -> Vec<usize> {
    let Some(a) = (0..cands.len()).max_by(|&x, &y| bases[x].total_cmp(&bases[y])) else {
        return Vec::new();
    };
    let doc = &hits[cands[a].hit].document;
    let at = cands[a].position;
    cands
        .iter()
        .enumerate()
        .filter(|(i, c)| {
            *i != a
                && c.cue >= 0.5
                && hits[c.hit].document == *doc
                && c.position.abs_diff(at) <= NEAR_ACTION_BYTES
        })
        .map(|(i, _)| i)
        .collect()
}

/// The words of a sentence that carry figures or months ("$15", "2014", "July"), in order.
fn figures_and_months(sentence: &str) -> Vec<String> {
    sentence
        .split(|c: char| c.is_whitespace() || c == ',' || c == '.')
        .filter(|w| {
            w.chars().any(|c| c.is_ascii_digit())
                || (crate::calendar::month_from_name(w).is_some()
                    && (w.len() > 3 || w.starts_with(char::is_uppercase)))
        })
        .map(str::to_string)
        .collect()
}

/// Which candidates are boilerplate: a near-duplicate stands in the retrieved passages of two
/// or more other dates.
fn boilerplate(
    retriever: &dyn Retriever,
    ranked: &[Hit],
    hits: &[Hit],
    cands: &[Candidate],
) -> Vec<bool> {
    let mut others: Vec<(Option<crate::corpus::Date>, String)> = Vec::new();
    for h in ranked {
        if hits.iter().any(|a| a.chunk_id == h.chunk_id) {
            continue;
        }
        if let Some(p) = retriever.passage(&h.chunk_id) {
            for s in sentences(&p.text) {
                others.push((h.date, s.to_string()));
            }
        }
    }
    cands
        .iter()
        .map(|c| {
            let own = hits[c.hit].date;
            let mut dates: Vec<Option<crate::corpus::Date>> = Vec::new();
            for (d, s) in &others {
                if *d != own && !dates.contains(d) && jaccard(&c.text, s) > MAX_OVERLAP {
                    dates.push(*d);
                }
            }
            dates.len() >= 2
        })
        .collect()
}

/// Words of a question that frame it rather than say what it is about: question words,
/// auxiliaries, pronouns, and where it was said.
const FRAMING: &[&str] = &[
    "what",
    "which",
    "who",
    "whom",
    "whose",
    "when",
    "where",
    "why",
    "how",
    "did",
    "do",
    "does",
    "was",
    "were",
    "is",
    "are",
    "be",
    "been",
    "has",
    "have",
    "had",
    "it",
    "its",
    "they",
    "their",
    "them",
    "he",
    "she",
    "his",
    "her",
    "we",
    "our",
    "you",
    "this",
    "that",
    "these",
    "those",
    "there",
    "meeting",
    "meetings",
    "statement",
    "statements",
    "minutes",
    "say",
    "said",
    "says",
    "according",
    "per",
];

/// The things a description question asks about: its topic words ([`topic_words`]) without
/// the words that ask for a description ("describe", "characterise", "view" …), who gave it,
/// months and figures. "How did the statement characterise household spending, business
/// investment and housing in October 2012?" gives "household spending business investment
/// housing".
pub fn described_things(question: &str) -> String {
    topic_words(question)
        .split_whitespace()
        .filter(|w| {
            !DESCRIBING.contains(w)
                && crate::calendar::month_from_name(w).is_none()
                && !w.chars().any(|c| c.is_ascii_digit())
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Words that ask for a description or say whose it was, and the small words between the
/// things asked about.
const DESCRIBING: &[&str] = &[
    "describe",
    "described",
    "describing",
    "description",
    "characterise",
    "characterised",
    "characterize",
    "characterized",
    "characterisation",
    "characterization",
    "portray",
    "portrayed",
    "view",
    "viewed",
    "see",
    "saw",
    "read",
    "assess",
    "assessed",
    "the",
    "a",
    "an",
    "and",
    "of",
    "in",
    "on",
    "at",
    "to",
    "for",
    "with",
    "its",
    "participants",
    "members",
    "officials",
    "policymakers",
    "staff",
];

/// `text` without the names of the institution that speaks in every document ("the FOMC",
/// "the Federal Open Market Committee", "the Fed", "the Committee") and without the words
/// that frame a question ([`FRAMING`]).
pub fn topic_words(text: &str) -> String {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| {
            let bare = w
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            bare.strip_suffix("'s").map(str::to_string).unwrap_or(bare)
        })
        .collect();
    let at = |i: usize, w: &str| words.get(i).is_some_and(|x| x == w);
    let mut kept = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let skip = if at(i, "federal") && at(i + 1, "open") && at(i + 2, "market") {
            3 + usize::from(at(i + 3, "committee"))
        } else if at(i, "federal") && at(i + 1, "reserve") {
            2
        } else if at(i, "fomc")
            || at(i, "committee")
            || (at(i, "fed") && !at(i + 1, "funds"))
            || FRAMING.contains(&words[i].as_str())
        {
            1
        } else {
            0
        };
        if skip == 0 {
            kept.push(words[i].as_str());
            i += 1;
        } else {
            i += skip;
        }
    }
    kept.join(" ")
}

/// Terms of a "besides / apart from / other than …" clause: the question asks for something
/// else, so sentences about these are not the answer.
fn excluded_terms(retriever: &dyn Retriever, question: &str) -> Vec<String> {
    let lower = question.to_lowercase();
    asks::set_aside(&lower)
        .map(|clause| retriever.analyze(&undated(clause)))
        .unwrap_or_default()
}

/// A set-aside clause without its date: "the emergency cut of 3 March 2020" names the meeting,
/// which every sentence of it shares, so only "the emergency cut of" tells what is set aside.
fn undated(clause: &str) -> String {
    clause
        .split_whitespace()
        .filter(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            !w.chars().any(|c| c.is_ascii_digit()) && crate::calendar::month_from_name(w).is_none()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first candidate of each document that fully offers what is asked.
fn first_cues(cands: &[Candidate], hits: &[Hit]) -> Vec<usize> {
    let mut best: Vec<(String, usize)> = Vec::new();
    for (i, c) in cands.iter().enumerate() {
        if c.cue < 1.0 {
            continue;
        }
        let doc = &hits[c.hit].document;
        match best.iter_mut().find(|(d, _)| d == doc) {
            Some((_, j)) if cands[*j].position > c.position => *j = i,
            Some(_) => {}
            None => best.push((doc.clone(), i)),
        }
    }
    best.into_iter().map(|(_, i)| i).collect()
}

/// Sentences of a meeting's procedure: approving the previous minutes, handing the directive to
/// the Desk, setting the next meeting, adjourning.
pub fn is_procedural(sentence: &str) -> bool {
    let s = sentence.to_lowercase();
    [
        "approved the minutes",
        "approve the minutes",
        "next meeting of the committee",
        "the meeting adjourned",
        "meeting adjourned at",
    ]
    .iter()
    .any(|p| s.contains(p))
        // The vote that hands the directive to the New York Desk, at every meeting.
        || super::cues::hands_directive(&s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_things_a_description_asks_about() {
        assert_eq!(
            described_things("How did the October 2012 FOMC statement characterise household spending, business investment and housing?"),
            "household spending business investment housing"
        );
        assert_eq!(
            described_things("How did the FOMC describe the pace of growth and the stance of fiscal policy in its statement of March 20, 2013?"),
            "pace growth stance fiscal policy"
        );
    }
    use crate::orchestrator::stages::synthesize::Candidate;

    #[test]
    fn a_set_aside_clause_loses_its_date() {
        assert_eq!(
            undated("the emergency cut of 3 march 2020"),
            "the emergency cut of"
        );
        assert_eq!(
            undated("setting the new target range on 16 dec. 2008"),
            "setting the new target range on"
        );
        assert_eq!(undated("agency debt and mbs"), "agency debt and mbs");
    }

    #[test]
    fn handing_the_directive_to_the_desk_is_procedure() {
        assert!(is_procedural("At the conclusion of the discussion, the Committee voted to authorize and direct the Federal Reserve Bank of New York, until it was instructed otherwise, to execute transactions in the System Account."));
        assert!(!is_procedural(
            "The Committee decided to keep its target for the federal funds rate at 1 percent."
        ));
    }
    #[test]
    fn the_institution_and_the_framing_are_not_what_a_question_is_about() {
        let q = "What did the FOMC blame for the economy's hesitancy at its March 2003 meeting?";
        assert_eq!(
            topic_words(q),
            "the blame for the economy hesitancy at march 2003"
        );
        assert_eq!(
            topic_words("Why did the Federal Open Market Committee cut?"),
            "the cut"
        );
        // The subcommittee and the fed funds rate are not the institution.
        assert_eq!(
            topic_words("the Fed's subcommittee on fed funds"),
            "the subcommittee on fed funds"
        );
    }
    #[test]
    fn a_term_few_sentences_hold_weighs_more_than_one_all_hold() {
        let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<String>>();
        let sets = vec![
            set(&["june", "labor"]),
            set(&["june", "referendum"]),
            set(&["june", "labor", "inflat"]),
        ];
        let q: Vec<String> = ["june", "referendum"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let w = rarity(&q, &sets);
        assert!(w[1] > w[0], "{w:?}");
        // Both hold one of the two terms; the one holding the rare term covers more.
        assert!(weighted_coverage(&q, &w, &sets[1]) > weighted_coverage(&q, &w, &sets[0]));
        // A term no sentence holds tells none apart.
        assert_eq!(rarity(&["absent".to_string()], &sets), vec![0.0]);
        assert_eq!(weighted_coverage(&q, &[0.0, 0.0], &sets[1]), 0.0);
    }
    #[test]
    fn reasons_beside_the_action_asked_about_are_found() {
        let cand = |text: &str, hit: usize, position: usize, cue: f64| Candidate {
            position,
            cue,
            ..Candidate::new(text, hit)
        };
        let hits = vec![
            Hit {
                document: "2004-09-21_minutes.md".into(),
                ..Hit::default()
            },
            Hit {
                document: "2004-09-21_statement.md".into(),
                ..Hit::default()
            },
        ];
        let cands = vec![
            cand("Members agreed to raise the target.", 0, 10_000, 1.0), // the action
            cand(
                "The expansion was self-sustaining, warranting it.",
                0,
                10_300,
                0.5,
            ),
            cand(
                "In light of the earlier weakness, staff expected …",
                0,
                2_000,
                1.0,
            ), // far
            cand("Output grew.", 0, 10_200, 0.0), // no reason
            cand(
                "In light of this, the Committee raised the target.",
                1,
                10_100,
                1.0,
            ), // other doc
        ];
        let bases = [0.9, 0.4, 0.5, 0.3, 0.6];
        assert_eq!(near_the_action(&cands, &bases, &hits), vec![1]);
        assert!(near_the_action(&[], &[], &hits).is_empty());
    }
    #[test]
    fn figures_and_months_tell_a_changed_pace_from_a_repeated_one() {
        let may = "Beginning in May, the Committee will add at a pace of $20 billion per month.";
        let july = "Beginning in July, the Committee will add at a pace of $15 billion per month.";
        assert_ne!(figures_and_months(may), figures_and_months(july));
        assert_eq!(figures_and_months(may), vec!["May", "$20"]);
        assert!(figures_and_months("The Committee is strongly committed.").is_empty());
    }
    #[test]
    fn procedure_is_recognised() {
        assert!(is_procedural("By notation vote completed on July 6, 2021, the Committee unanimously approved the minutes of the Committee meeting held on June 15–16, 2021."));
        assert!(is_procedural("It was agreed that the next meeting of the Committee would be held on Tuesday–Wednesday, September 21–22, 2021."));
        assert!(!is_procedural(
            "The Committee voted unanimously to approve the establishment of the SRF."
        ));
    }
}
