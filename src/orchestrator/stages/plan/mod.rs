//! Plan: coherence, date hints, list questions, and a revised query that retrieval
//! can use. The offline planner is deterministic: the same question always gives the same plan.
//! A follow-up ("and in 2021?") is planned as the standalone question it stands for.
//!
//! The intent (factual, trend, comparative, causal, multi_part, aggregate, exploratory) decides
//! the route: intents that need several documents go to the decompose stage.
//!
//! Slice: the [`ExecutionPlan`]. Facts: `incoherent`, `needs_retrieval`, `decompose`.

mod contract;

use crate::orchestrator::asks::asks_why_not;
use crate::orchestrator::contract::ModelContract;
use crate::orchestrator::graph::plan_rules::intent_of;
use crate::orchestrator::stage::{Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::state::{QueryInput, Work};
use crate::orchestrator::topology::NodeId;
use crate::orchestrator::types::{Coherence, ExecutionPlan, IntentType, DEFAULT_TOP_K, MAX_TOP_K};
use crate::query::{date_hints, date_mentions};

pub const ID: NodeId = NodeId::new("plan");

pub struct Plan;

impl Stage for Plan {
    fn id(&self) -> NodeId {
        ID
    }

    fn run(&self, cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError> {
        let plan = plan_for(&cx.input);
        let outcome = outcome(&plan)?;
        work.plan = Some(plan);
        Ok(outcome)
    }

    fn model(&self) -> Option<&dyn ModelContract> {
        Some(&contract::PlanContract)
    }
}

/// The offline plan of the question as it reads in the conversation.
pub fn plan_for(input: &QueryInput) -> ExecutionPlan {
    match &input.followup {
        Some(f) if f.carried_topic || f.carried_dates => {
            let mut p = plan(&f.query);
            p.original_query = input.query.clone();
            p
        }
        _ => plan(&input.query),
    }
}

/// The slice and routing facts of a plan.
fn outcome(plan: &ExecutionPlan) -> Result<StageOutcome, StageError> {
    let slice = serde_json::to_value(plan).map_err(|e| StageError::Other(e.to_string()))?;
    Ok(StageOutcome::new(slice)
        .flag("incoherent", plan.coherence == Coherence::Incoherent)
        .flag("needs_retrieval", plan.needs_retrieval)
        .flag(
            "decompose",
            plan.needs_retrieval && plan.intent.needs_graph(),
        ))
}

const ENUMERATE: [&str; 6] = [
    "list all",
    "list every",
    "list each",
    "every ",
    "each ",
    "all the ",
];
const TREND: [&str; 6] = [
    "over time",
    "trend",
    "evolve",
    "evolved",
    "changed since",
    "history of",
];

/// Abbreviations expanded in the revised query so BM25 and the embedder both see the words;
/// and the words people use for what policy documents record in other words (a dissent is
/// written "voting against", a liftoff or a hike "raise the target range").
const EXPANSIONS: [(&str, &str); 17] = [
    ("cut", "lower"),
    ("cuts", "lower"),
    ("dissent", "voting against"),
    ("dissents", "voting against"),
    ("dissented", "voting against"),
    ("dissenter", "voting against"),
    ("dissenters", "voting against"),
    ("liftoff", "raise the target range"),
    ("hike", "raise the target range"),
    ("fomc", "federal open market committee"),
    ("fed funds", "federal funds"),
    ("ffr", "federal funds rate"),
    ("bp", "basis points"),
    ("bps", "basis points"),
    ("qe", "quantitative easing asset purchases"),
    ("ioer", "interest on excess reserves"),
    ("mbs", "mortgage-backed securities"),
];

pub fn plan(query: &str) -> ExecutionPlan {
    let original = query.trim().to_string();
    let normalised = original.split_whitespace().collect::<Vec<_>>().join(" ");
    let lower = normalised.to_lowercase();
    let mut plan = ExecutionPlan {
        original_query: original.clone(),
        revised_query: normalised.clone(),
        coherence: Coherence::Coherent,
        coherence_reason: None,
        needs_retrieval: true,
        metadata_hints: None,
        top_k_hint: DEFAULT_TOP_K,
        intent: IntentType::Factual,
        suggested_years: Vec::new(),
        reply: None,
    };
    if let Some(reason) = incoherence(&lower) {
        plan.coherence = Coherence::Incoherent;
        plan.coherence_reason = Some(reason.clone());
        plan.needs_retrieval = false;
        plan.reply = Some(format!(
            "I couldn't make out a question there ({reason}). Could you rephrase it in words, for example \"What did the Committee decide in March 2020?\""
        ));
        return plan;
    }
    plan.intent = intent_of(&lower, &date_mentions(&lower)).0;
    if plan.intent == IntentType::Aggregate
        || ENUMERATE
            .iter()
            .any(|p| lower.starts_with(p.trim_end()) || lower.contains(p))
    {
        plan.top_k_hint = 30.min(MAX_TOP_K);
    } else if plan.intent == IntentType::Trend || TREND.iter().any(|p| lower.contains(p)) {
        plan.top_k_hint = 20;
    }
    plan.metadata_hints = date_hints(&lower);
    plan.suggested_years = plan.metadata_hints.map(|h| h.years()).unwrap_or_default();
    plan.revised_query = revise(&normalised);
    // Why something was not done: the documents give it as waiting for more information
    // ("await further confirmation … before easing"), in words the question does not use.
    if plan.intent == IntentType::Causal && asks_why_not(&lower) {
        plan.revised_query
            .push_str(" wait for further evidence before");
    }
    plan
}

/// Why the input is not a question, if it is not (lower case).
pub fn incoherence(lower: &str) -> Option<String> {
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let alpha: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| w.chars().any(char::is_alphabetic))
        .collect();
    if alpha.is_empty() {
        return Some("no words".to_string());
    }
    let junk = alpha.iter().filter(|w| looks_like_junk(w)).count();
    if junk * 2 > alpha.len() {
        return Some("it looks like random characters".to_string());
    }
    None
}

fn looks_like_junk(w: &str) -> bool {
    let chars: Vec<char> = w.chars().collect();
    if chars.len() > 25 {
        return true;
    }
    let vowel = |c: &char| "aeiouy".contains(*c);
    let has_vowel = chars.iter().any(vowel);
    let mut run = 0;
    let mut max_run = 0;
    for c in &chars {
        if c.is_alphabetic() && !vowel(c) {
            run += 1;
            max_run = max_run.max(run);
        } else {
            run = 0;
        }
    }
    let repeated = chars.windows(3).any(|w| w[0] == w[1] && w[1] == w[2]);
    (chars.len() > 3 && !has_vowel) || max_run >= 5 || repeated
}

/// The full name of a month written short ("jan" → "January", "sept" → "September"); none for
/// a name already in full ("may", "june").
fn month_abbreviation(tok: &str) -> Option<&'static str> {
    let w = tok.trim_end_matches('.');
    let full = crate::calendar::month_from_name(w)
        .and_then(|m| crate::calendar::MONTH_NAMES.get(m as usize - 1))?;
    (!full.eq_ignore_ascii_case(w)).then_some(*full)
}

fn revise(normalised: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let lower = normalised.to_lowercase();
    let tokens: Vec<&str> = lower.split_whitespace().collect();
    let mut i = 0;
    while i < tokens.len() {
        let tok = tokens[i].trim_matches(|c: char| !c.is_alphanumeric() && c != '/' && c != '-');
        let pair = tokens
            .get(i + 1)
            .map(|n| format!("{tok} {}", n.trim_matches(|c: char| !c.is_alphanumeric())));
        if let Some((_, exp)) = pair
            .as_deref()
            .and_then(|p| EXPANSIONS.iter().find(|(a, _)| *a == p))
        {
            words.push(exp.to_string());
            i += 2;
            continue;
        }
        match EXPANSIONS.iter().find(|(a, _)| *a == tok) {
            Some((_, exp)) => words.push(format!("{tok} {exp}")),
            // "jan 3 2001": the documents write the month's name in full.
            None => match month_abbreviation(tok) {
                Some(full) => words.push(format!("{} {full}", tokens[i])),
                None => words.push(tokens[i].to_string()),
            },
        }
        i += 1;
    }
    let revised = words.join(" ");
    let revised = revised.trim_end_matches(['?', '.', '!']).to_string();
    if revised.is_empty() {
        normalised.to_string()
    } else {
        revised
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Date;
    use crate::query::MetadataHints;

    fn d(s: &str) -> Date {
        Date::parse(s).unwrap()
    }

    #[test]
    fn a_short_month_and_a_cut_are_written_as_the_documents_write_them() {
        let q = plan("why did they cut on jan 3, 2001?").revised_query;
        assert!(q.contains("jan January 3"), "{q}");
        assert!(q.contains("cut lower"), "{q}");
        // A month written in full, or "may", is left as it is.
        let q = plan("what happened in may and in march 2020").revised_query;
        assert_eq!(q, "what happened in may and in march 2020");
        assert_eq!(month_abbreviation("sept."), Some("September"));
        assert_eq!(month_abbreviation("june"), None);
    }

    #[test]
    fn gibberish_and_empty_words_are_incoherent() {
        for q in ["asdfgh qwrtzp xkcdvb", "???", "1234 5678", "zzzzzzz"] {
            let p = plan(q);
            assert_eq!(p.coherence, Coherence::Incoherent, "{q}");
            assert!(!p.needs_retrieval);
            assert!(p.coherence_reason.is_some() && p.reply.is_some());
        }
        for q in [
            "What did the FOMC decide in March 2020?",
            "rates",
            "QE3 purchases",
        ] {
            assert_eq!(plan(q).coherence, Coherence::Coherent, "{q}");
        }
    }

    #[test]
    fn dates_become_hints_and_year_suggestions() {
        let p = plan("What did the FOMC decide in March 2020?");
        assert_eq!(
            p.metadata_hints,
            Some(MetadataHints {
                date_start: d("2020-03-01"),
                date_end: d("2020-03-31")
            })
        );
        assert_eq!(p.suggested_years, vec![2020]);
        let p = plan("target on August 22, 2000?");
        assert_eq!(
            p.metadata_hints,
            Some(MetadataHints {
                date_start: d("2000-08-22"),
                date_end: d("2000-08-22")
            })
        );
        let p = plan("changes between 2008 and 2010");
        assert_eq!(p.metadata_hints.unwrap().date_start, d("2008-01-01"));
        assert_eq!(p.suggested_years, vec![2008, 2009, 2010]);
        assert_eq!(
            plan("on 2020-03-15").metadata_hints.unwrap().date_end,
            d("2020-03-15")
        );
        assert_eq!(plan("the rate now").metadata_hints, None);
        assert_eq!(
            plan("February 2021").metadata_hints.unwrap().date_end,
            d("2021-02-28")
        );
    }

    #[test]
    fn list_questions_ask_for_more_passages() {
        let p = plan("List all the meetings where the rate was cut");
        assert_eq!(p.top_k_hint, 30);
        assert!(p.top_k_hint > DEFAULT_TOP_K && p.top_k_hint <= MAX_TOP_K);
        assert_eq!(plan("what was the rate").top_k_hint, DEFAULT_TOP_K);
    }

    #[test]
    fn revised_query_is_normalised_and_expanded() {
        let p = plan("  What  did the FOMC do   with fed funds?  ");
        assert_eq!(
            p.revised_query,
            "what did the fomc federal open market committee do with federal funds"
        );
        assert_eq!(p.original_query, "What  did the FOMC do   with fed funds?");
    }
}
