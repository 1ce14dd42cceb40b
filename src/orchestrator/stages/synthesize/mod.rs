//! Synthesize: picks the sentences of the top chunks that best answer the question — query-term
//! coverage, dense similarity, the chunk's own rank — with a diversity penalty, and composes them
//! with `[n]` markers; the citations are data beside the text. Offline it is extractive; the
//! model half ([`contract`]) writes the answer and streams it.
//!
//! Slice: the mode, sentence counts, the answer and its citations `[{n, chunk_id}]`.

mod acronyms;
mod anaphora;
mod contract;
mod cues;
mod meeting;
mod rate_move;

use crate::index::Hit;
use crate::orchestrator::asks::{self, classify, Asks};
use crate::orchestrator::citations::with_markers;
use crate::orchestrator::contract::ModelContract;
use crate::orchestrator::graph::plan_rules::series_of;
use crate::orchestrator::relevance::{coverage, scaled_cosine};
use crate::orchestrator::stage::{r2, Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::stages::validate::support::{cited_passage, names, supports};
use crate::orchestrator::state::{AnswerSentence, Work};
use crate::orchestrator::text::{clean_sentence, is_whole_sentence, jaccard, sentences};
use crate::orchestrator::topology::NodeId;
use crate::orchestrator::types::{Citation, IntentType};
use cues::{cue, names_month, names_other_meeting};
use meeting::{answer_hits, more_of_meeting, pointer, previous_meeting_sentences, with_candidates};
use serde_json::json;
use std::collections::HashSet;

pub const ID: NodeId = NodeId::new("synthesize");

pub struct Synthesize;

impl Stage for Synthesize {
    fn id(&self) -> NodeId {
        ID
    }

    fn run(&self, cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError> {
        let slice = run(cx, work)?;
        // Offline, the answer is whole at once: it is shown a sentence at a time.
        for s in &work.answer.sentences {
            cx.sink.answer_token(&s.display);
        }
        Ok(StageOutcome::new(slice))
    }

    fn model(&self) -> Option<&dyn ModelContract> {
        Some(&contract::SynthesizeContract)
    }
}

/// Sentences more similar than this (word Jaccard) to one already chosen add nothing new.
const MAX_OVERLAP: f64 = 0.6;
/// Other passages cited beside a sentence they repeat.
const MAX_CORROBORATING: usize = 2;
/// Weight of how strongly a sentence offers what the question asks for (see [`cues::cue`]).
const W_CUE: f64 = 0.3;
/// Passages of one named meeting read for its answer (the ranked ones first).
const MEETING_PASSAGES: usize = 10;
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

struct Candidate {
    text: String,
    hit: usize,
    /// Byte offset in its document, for "first in its document".
    position: usize,
    /// Which sentence of its passage it is, for the one before it.
    seq: usize,
    cue: f64,
    /// What the acronyms it uses stand for, as its passage defines them.
    expansions: String,
    /// A meeting's procedure (minutes approved, the next meeting's date), not its substance.
    procedural: bool,
    score: f64,
    vector: Option<Vec<f32>>,
}

fn run(cx: &StageCx, work: &mut Work) -> Result<serde_json::Value, StageError> {
    let retriever = &cx.retriever;
    let intent = work.plan.as_ref().map(|p| p.intent);
    let several = matches!(intent, Some(IntentType::Aggregate | IntentType::Trend));
    let (chunks_used, max_sentences) = if several { (12, 8) } else { (6, 3) };
    // What is asked is read from the question as it stands in the conversation (a follow-up
    // resolved by the planner), not from a reformulation's added terms.
    let question = work
        .plan
        .as_ref()
        .map(|p| p.revised_query.clone())
        .unwrap_or_else(|| cx.input.query.clone());
    // The planner's added words ("liftoff" → "raise the target range") help the search; they
    // do not change what the user asked for.
    let asks = classify(&crate::orchestrator::stages::decompose::question_of(
        cx, work,
    ));
    // A why is often answered by more than one reason.
    let max_sentences = if asks == Asks::Reason && !several {
        max_sentences + 1
    } else {
        max_sentences
    };
    // "The last meeting of 2004" may have ranked below the cut: its candidates count too.
    let pool = if work.date_hint().is_some() && pointer(&question).first.is_some() {
        let c = &work.retrieval.candidates;
        let ids: Vec<&str> = c
            .dense
            .iter()
            .chain(c.sparse.iter())
            .map(|r| r.chunk_id.as_str())
            .collect();
        with_candidates(&work.retrieval.hits, &ids, retriever.as_ref())
    } else {
        work.retrieval.hits.clone()
    };
    let mut hits = answer_hits(&pool, work.date_hint(), &question, several, chunks_used);
    // A question about one named meeting reads more of that meeting than the cut over the
    // whole collection kept.
    let query = work.search_text(&cx.input);
    let meeting = one_meeting(&hits).filter(|_| !several && work.date_hint().is_some());
    if let Some(date) = meeting {
        let qvec = work.retrieval.query_vec.as_deref();
        for h in more_of_meeting(retriever.as_ref(), &query, qvec, date, MEETING_PASSAGES) {
            if hits.len() >= MEETING_PASSAGES {
                break;
            }
            if !hits.iter().any(|x| x.chunk_id == h.chunk_id) {
                hits.push(h);
            }
        }
    }
    let excluded = excluded_terms(retriever.as_ref(), &question);
    // Every question names the institution ("what did the FOMC …") and frames itself ("what
    // did … say at its meeting"); neither is what it is about, and weighed as a rare term
    // either would favour the one sentence that happens to spell it out.
    let q_terms = retriever.analyze(&topic_words(&format!("{} {}", cx.input.query, query)));
    let mut cands: Vec<Candidate> = Vec::new();
    for (i, h) in hits.iter().enumerate() {
        let Some(passage) = retriever.passage(&h.chunk_id) else {
            continue;
        };
        let base = passage.text.as_ptr() as usize;
        let defs = acronyms::definitions(&passage.text);
        for (seq, s) in sentences(&passage.text).into_iter().enumerate() {
            let text = clean_sentence(s);
            let words = text.split_whitespace().count();
            let mut offers = cue(asks, &text);
            // Minutes recount the last meeting's decision; it is not this meeting's.
            if matches!(asks, Asks::Rate | Asks::Decision)
                && h.date
                    .is_some_and(|d| names_other_meeting(&text, u32::from(d.month)))
            {
                offers = 0.0;
            }
            // Long sentences are mostly run-on text, but one vote sentence can give three
            // dissenters and each one's view.
            let longest = if asks == Asks::Vote && offers >= 1.0 {
                250
            } else {
                120
            };
            // A list of names is no answer, unless it is the list of who voted against.
            let listed = is_name_list(&text) && !(asks == Asks::Vote && offers >= 1.0);
            if (4..=longest).contains(&words) && is_whole_sentence(&text) && !listed {
                cands.push(Candidate {
                    cue: offers,
                    expansions: acronyms::expansions(&text, &defs),
                    procedural: is_procedural(&text),
                    text,
                    hit: i,
                    seq,
                    position: passage.byte_start + (s.as_ptr() as usize - base),
                    score: 0.0,
                    vector: None,
                });
            }
        }
    }
    cx.cancel.check()?;
    let vectors = match &work.retrieval.query_vec {
        Some(_) if !cands.is_empty() => {
            // A sentence is embedded with what its acronyms stand for ("the SRF" → "standing
            // repurchase agreement facility").
            let texts: Vec<String> = cands
                .iter()
                .map(|c| {
                    format!("{} {}", c.text, c.expansions)
                        .trim_end()
                        .to_string()
                })
                .collect();
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            retriever.embed_texts(&texts)?
        }
        _ => None,
    };
    cx.cancel.check()?;
    if asks == Asks::Vote {
        second_vote_sentences(&mut cands);
    }
    // Why something was not done: waiting for more information is the reason given, and any
    // other reason-sounding sentence (why the economy moved) counts for less.
    if asks == Asks::Reason && asks::asks_why_not(&question) {
        for c in &mut cands {
            c.cue = if cues::waits(&c.text.to_lowercase()) {
                1.0
            } else {
                c.cue * 0.7
            };
        }
    }
    if asks == Asks::Description {
        subject_cues(&question, &mut cands);
    }
    let mut repeated = boilerplate(cx, work, &hits, &cands);
    // Asked why, or how something was seen, at one meeting: what the meeting before already
    // said in the same words is standing language, not this meeting's answer.
    if let Some(date) = meeting.filter(|_| matches!(asks, Asks::Reason | Asks::Description)) {
        let qvec = work.retrieval.query_vec.as_deref();
        let earlier = previous_meeting_sentences(retriever.as_ref(), &query, qvec, date);
        for (r, c) in repeated.iter_mut().zip(&cands) {
            *r = *r || earlier.iter().any(|s| jaccard(&c.text, s) > MAX_OVERLAP);
        }
    }
    let firsts = first_cues(&cands, &hits);
    let w_cue = if asks == Asks::Other { 0.0 } else { W_CUE };
    let asks_procedure = is_procedural(&question) || {
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
    };
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
    let weights = rarity(&q_terms, &term_sets);
    let mut bases: Vec<f64> = Vec::with_capacity(cands.len());
    for (i, c) in cands.iter_mut().enumerate() {
        let terms = &term_sets[i];
        let cov = weighted_coverage(&q_terms, &weights, terms);
        let cov = if asks == Asks::Reason {
            0.5 + 0.5 * cov
        } else {
            cov
        };
        let besides = !excluded.is_empty() && coverage(&excluded, terms) >= 0.5;
        let prior = 1.0 / (c.hit as f64 + 1.0);
        let base = match (&vectors, &work.retrieval.query_vec) {
            (Some(v), Some(q)) => {
                let cos = f64::from(crate::index::dense::dot(&v[i], q));
                c.vector = Some(v[i].clone());
                0.45 * scaled_cosine(cos) + 0.35 * cov + 0.2 * prior
            }
            _ => 0.6 * cov + 0.4 * prior,
        };
        c.score = (1.0 - w_cue) * base + w_cue * c.cue;
        bases.push(base);
        // A decision can be worded as at other meetings and still be this one's; a reason or
        // a characterisation said at every meeting ("seeks to foster maximum employment") is
        // not what this meeting's answer is.
        if repeated[i] && (c.cue < 1.0 || matches!(asks, Asks::Reason | Asks::Description)) {
            c.score -= BOILERPLATE_PENALTY;
        }
        if firsts.contains(&i) && w_cue > 0.0 {
            c.score += FIRST_CUE_BONUS;
        }
        if besides {
            c.score -= BESIDES_PENALTY;
        }
        if c.procedural && !asks_procedure {
            c.score -= PROCEDURAL_PENALTY;
        }
    }
    // "According to the minutes, …": a sentence of a document of another series (the
    // statement of the same day) answers only if the minutes do not.
    if series_of(&question.to_lowercase()).as_deref() == Some("minutes")
        && cands.iter().any(|c| is_minutes(&hits[c.hit]))
    {
        for c in cands.iter_mut().filter(|c| !is_minutes(&hits[c.hit])) {
            c.score -= OTHER_SERIES_PENALTY;
        }
    }
    // Asked why, the minutes' first half reviews the markets and the economy; the reasons for
    // the decision come in the Committee's discussion of policy after it.
    if asks == Asks::Reason {
        let lengths: std::collections::HashMap<String, usize> = retriever
            .documents()
            .into_iter()
            .filter(|d| hits.iter().any(|h| h.document == d.document))
            .map(|d| (d.document, d.length))
            .collect();
        for c in cands.iter_mut() {
            let h = &hits[c.hit];
            let length = lengths.get(&h.document).copied().unwrap_or(0);
            if is_minutes(h) && length > 0 && (c.position as f64) < REVIEW_SHARE * length as f64 {
                c.score -= REVIEW_PENALTY;
            }
        }
    }
    // "What was new": a sentence the previous meeting already said is not the answer.
    if let Some(date) = meeting.filter(|_| asks != Asks::Rate && asks::asks_new(&question)) {
        let qvec = work.retrieval.query_vec.as_deref();
        let earlier = previous_meeting_sentences(retriever.as_ref(), &query, qvec, date);
        // Asked for new amounts or dates, the same sentence with other figures is new.
        let figures_matter = matches!(asks, Asks::Amount | Asks::Schedule);
        for c in &mut cands {
            if earlier.iter().any(|s| {
                jaccard(&c.text, s) > MAX_OVERLAP
                    && (!figures_matter || figures_and_months(&c.text) == figures_and_months(s))
            }) {
                c.score -= CARRIED_OVER_PENALTY;
            }
        }
    }
    if asks == Asks::Reason {
        for i in near_the_action(&cands, &bases, &hits) {
            cands[i].score += NEAR_ACTION_BONUS;
        }
    }
    let mut order: Vec<usize> = (0..cands.len()).collect();
    order.sort_by(|&a, &b| cands[b].score.total_cmp(&cands[a].score).then(a.cmp(&b)));
    // One meeting answers: the date of the best sentence (its statement and minutes alike).
    if !several {
        if let Some(date) = order.first().map(|&i| hits[cands[i].hit].date) {
            order.retain(|&i| hits[cands[i].hit].date == date);
        }
    }
    let mut chosen = choose(&cands, &order, max_sentences);
    // A schedule is answered with its month: if no chosen sentence names one, the best
    // sentence that does (and offers a start or an end) joins the answer.
    if asks == Asks::Schedule && !chosen.iter().any(|(i, _)| names_month(&cands[*i].text)) {
        if let Some(&i) = order
            .iter()
            .find(|&&i| cands[i].cue >= 1.0 && !chosen.iter().any(|(j, _)| *j == i))
        {
            if chosen.len() >= max_sentences {
                chosen.pop();
            }
            chosen.push((i, Vec::new()));
        }
    }
    // "Who dissented, and what worried him?": the answer names the dissenter *and* gives what
    // they preferred or feared; if no chosen sentence does, the best one that does joins.
    if asks == Asks::Vote && asks::asks_vote_detail(&question) {
        let dissenters = dissenters(&cands);
        let gives_detail = |c: &Candidate| {
            cues::states_preference(&c.text)
                && names(&c.text).iter().any(|n| dissenters.contains(n))
        };
        if !chosen.iter().any(|(i, _)| gives_detail(&cands[*i])) {
            if let Some(&i) = order
                .iter()
                .find(|&&i| gives_detail(&cands[i]) && !chosen.iter().any(|(j, _)| *j == i))
            {
                if chosen.len() >= max_sentences {
                    chosen.pop();
                }
                chosen.push((i, Vec::new()));
            }
        }
    }
    let mut chosen = with_antecedents(chosen, &cands, asks, max_sentences);
    // "Raised, and by how much?" answered by a sentence that gives only the new target: the
    // size is worked out from the previous meeting's target, whose sentence is cited too.
    let sized = match chosen.first() {
        Some((i, _)) if asks == Asks::Rate && asks::asks_move(&question) => hits[cands[*i].hit]
            .date
            .and_then(|d| rate_move::size_of(retriever.as_ref(), &cands[*i].text, d)),
        _ => None,
    };
    if let Some(m) = &sized {
        let text = format!("{}: {}", m.previous_date.long_form(), m.previous_sentence);
        let vector = match &work.retrieval.query_vec {
            Some(_) => retriever
                .embed_texts(&[text.as_str()])?
                .and_then(|mut v| v.pop()),
            None => None,
        };
        hits.push(m.previous_hit.clone());
        cands.push(Candidate {
            text,
            hit: hits.len() - 1,
            position: 0,
            seq: 0,
            cue: 0.0,
            expansions: String::new(),
            procedural: false,
            score: 0.0,
            vector,
        });
        chosen.push((cands.len() - 1, Vec::new()));
    }
    // Another passage is cited beside a sentence only when it supports it (its figures, dates
    // and names), so `[1][2]` never puts a meeting's figure on a passage that states another.
    for (i, support) in &mut chosen {
        support.retain(|&h| {
            let hit = &hits[h];
            retriever.passage(&hit.chunk_id).is_some_and(|p| {
                supports(
                    &cands[*i].text,
                    &cited_passage(hit.date, &hit.title, hit.section.as_deref(), &p.text),
                )
            })
        });
    }

    // Number citations by first use.
    let mut cited_hits: Vec<usize> = Vec::new();
    let mut number = |hit: usize| match cited_hits.iter().position(|&h| h == hit) {
        Some(p) => p + 1,
        None => {
            cited_hits.push(hit);
            cited_hits.len()
        }
    };
    // A passage read here beyond the ranked hits (a meeting's other candidates, the previous
    // meeting's target) joins them: it was retrieved, by this stage, and validate keeps only
    // citations of retrieved passages.
    for &h in &cited_hits_of(&chosen, &cands) {
        if !work
            .retrieval
            .hits
            .iter()
            .any(|x| x.chunk_id == hits[h].chunk_id)
        {
            let mut hit = hits[h].clone();
            hit.rank = work.retrieval.hits.len() + 1;
            work.retrieval.hits.push(hit);
        }
    }
    let answer = &mut work.answer;
    answer.sentences.clear();
    answer.vectors.clear();
    for (i, support) in &chosen {
        let c = &cands[*i];
        let ns: Vec<usize> = std::iter::once(c.hit)
            .chain(support.iter().copied())
            .map(&mut number)
            .collect();
        answer.sentences.push(AnswerSentence {
            display: with_markers(&c.text, &ns),
            text: with_context(&c.text, &hits[c.hit]),
            citations: ns,
        });
        if let Some(v) = &c.vector {
            answer.vectors.push(v.clone());
        }
    }
    answer.citations = cited_hits
        .iter()
        .enumerate()
        .map(|(k, &h)| {
            let hit = &hits[h];
            Citation {
                n: k + 1,
                chunk_id: hit.chunk_id.clone(),
                document: hit.document.clone(),
                date: hit.date,
                section: hit.section.clone(),
                score: r2(f64::from(hit.score)),
            }
        })
        .collect();
    // The move and its size open the answer; they are worked out, not quoted, so they carry
    // no marker of their own (the two sentences they come from do).
    if let Some(m) = sized {
        let first = answer.vectors.first().cloned();
        answer.sentences.insert(
            0,
            AnswerSentence {
                display: m.sentence.clone(),
                text: m.sentence,
                citations: Vec::new(),
            },
        );
        if let Some(v) = first {
            answer.vectors.insert(0, v);
        }
    }
    answer.text = answer
        .sentences
        .iter()
        .map(|s| s.display.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    Ok(json!({
        "mode": "extractive",
        "asks": asks,
        "answered_from": chosen.iter().filter_map(|(i, _)| hits[cands[*i].hit].date).map(|d| d.to_string()).collect::<std::collections::BTreeSet<_>>(),
        "sentences_considered": cands.len(),
        "sentences_chosen": chosen.len(),
        "corroborating_citations": chosen.iter().map(|(_, s)| s.len()).sum::<usize>(),
        "answer": answer.text,
        "citations": answer.citations.iter().map(|c| json!({"n": c.n, "chunk_id": c.chunk_id})).collect::<Vec<_>>(),
    }))
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

/// The date every hit shares, if they share one.
fn one_meeting(hits: &[Hit]) -> Option<crate::corpus::Date> {
    let first = hits.first()?.date?;
    hits.iter().all(|h| h.date == Some(first)).then_some(first)
}

/// The hits the chosen sentences cite, their own and the ones that repeat them.
fn cited_hits_of(chosen: &[(usize, Vec<usize>)], cands: &[Candidate]) -> Vec<usize> {
    chosen
        .iter()
        .flat_map(|(i, support)| std::iter::once(cands[*i].hit).chain(support.iter().copied()))
        .collect()
}

/// The sentences of the answer, best first, each with the other hits that repeat it: after
/// the first, only sentences scoring at least 0.6 of it count, as new sentences or as support;
/// a near-duplicate from another passage is not repeated but cited beside the first.
fn choose(cands: &[Candidate], order: &[usize], max_sentences: usize) -> Vec<(usize, Vec<usize>)> {
    let mut chosen: Vec<(usize, Vec<usize>)> = Vec::new();
    for &i in order {
        if let Some((first, _)) = chosen.first() {
            if cands[i].score < cands[*first].score * 0.6 {
                break;
            }
        }
        if let Some((j, support)) = chosen
            .iter_mut()
            .find(|(j, _)| repeats(&cands[i].text, &cands[*j].text))
        {
            // The shorter of two sentences one of which holds the other is the one shown: the
            // longer runs on into more ("… Plans. Voting for this action: …"), and its passage
            // still supports the shorter.
            if holds(&cands[*j].text, &cands[i].text) {
                let longer = std::mem::replace(j, i);
                support.retain(|&h| h != cands[i].hit);
                if cands[longer].hit != cands[i].hit {
                    support.insert(0, cands[longer].hit);
                    support.truncate(MAX_CORROBORATING);
                }
                continue;
            }
            let hit = cands[i].hit;
            if hit != cands[*j].hit && !support.contains(&hit) && support.len() < MAX_CORROBORATING
            {
                support.push(hit);
            }
            continue;
        }
        if chosen.len() < max_sentences {
            chosen.push((i, Vec::new()));
        }
    }
    chosen
}

/// The chosen sentences, each that leans on the sentence before it ("Moreover, he …",
/// "Consequently, …") preceded by that sentence, which does not count towards `max`.
fn with_antecedents(
    chosen: Vec<(usize, Vec<usize>)>,
    cands: &[Candidate],
    asks: Asks,
    max: usize,
) -> Vec<(usize, Vec<usize>)> {
    let mut out: Vec<(usize, Vec<usize>)> = Vec::with_capacity(chosen.len() + 1);
    let mut counted = 0;
    for (i, support) in chosen {
        if counted >= max {
            break;
        }
        if out.iter().any(|(j, _)| *j == i) {
            continue;
        }
        let c = &cands[i];
        let before = anaphora::leans_on_previous(&c.text, asks)
            .then(|| {
                cands
                    .iter()
                    .position(|p| p.hit == c.hit && c.seq > 0 && p.seq == c.seq - 1)
            })
            .flatten();
        if let Some(j) = before.filter(|j| !out.iter().any(|(k, _)| k == j)) {
            out.push((j, Vec::new()));
        }
        out.push((i, support));
        counted += 1;
    }
    out
}

/// Whether two sentences say the same: mostly the same words, or one holds the other whole (a
/// quoted sentence run together with the next one, "… Plans. Voting for this action: …").
fn repeats(a: &str, b: &str) -> bool {
    jaccard(a, b) > MAX_OVERLAP || holds(a, b) || holds(b, a)
}

/// Whether `long` holds `short` whole and says more.
fn holds(long: &str, short: &str) -> bool {
    let plain = |s: &str| {
        s.to_lowercase()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .trim_end_matches(['.', ';', ':', '"', '\u{201D}'])
            .to_string()
    };
    let (long, short) = (plain(long), plain(short));
    short.len() >= 40 && long.len() > short.len() && long.contains(short.as_str())
}

/// Which candidates are boilerplate: a near-duplicate stands in the retrieved passages of two
/// or more other dates.
fn boilerplate(cx: &StageCx, work: &Work, hits: &[Hit], cands: &[Candidate]) -> Vec<bool> {
    let mut others: Vec<(Option<crate::corpus::Date>, String)> = Vec::new();
    for h in &work.retrieval.hits {
        if hits.iter().any(|a| a.chunk_id == h.chunk_id) {
            continue;
        }
        if let Some(p) = cx.retriever.passage(&h.chunk_id) {
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

/// `text` without the names of the institution that speaks in every document ("the FOMC",
/// "the Federal Open Market Committee", "the Fed", "the Committee") and without the words
/// that frame a question ([`FRAMING`]).
fn topic_words(text: &str) -> String {
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
fn excluded_terms(retriever: &dyn crate::index::Retriever, question: &str) -> Vec<String> {
    let lower = question.to_lowercase();
    asks::set_aside(&lower)
        .map(|clause| retriever.analyze(clause))
        .unwrap_or_default()
}

/// "What did the Committee say about the banking system?": a sentence that says what the named
/// subject is or has been ("The U.S. banking system is sound and resilient") characterises it,
/// whatever its words.
fn subject_cues(question: &str, cands: &mut [Candidate]) {
    let subject = asks::subject(question);
    if subject.is_empty() {
        return;
    }
    for c in cands.iter_mut() {
        let lower = c.text.to_lowercase();
        let names = subject.iter().all(|w| lower.contains(w.as_str()));
        let says_what_it_is = [
            " is ",
            " are ",
            " was ",
            " were ",
            " remain",
            " has been ",
            " have been ",
            " become",
            " became",
            " appear",
            " seem",
            " continued to ",
        ]
        .iter()
        .any(|v| lower.contains(v));
        if names && says_what_it_is {
            c.cue = c.cue.max(1.0);
        }
    }
}

/// A vote question asks who dissented *and* what they preferred or why: a sentence naming a
/// dissenter ("Mr. Hoenig believed the risks … outweighed the benefits") offers it too.
fn second_vote_sentences(cands: &mut [Candidate]) {
    let dissenters = dissenters(cands);
    for c in cands.iter_mut().filter(|c| c.cue < 1.0) {
        if names(&c.text).iter().any(|n| dissenters.contains(n)) {
            c.cue = 0.8;
        }
    }
}

/// The people the vote sentences name.
fn dissenters(cands: &[Candidate]) -> Vec<String> {
    cands
        .iter()
        .filter(|c| c.cue >= 1.0)
        .flat_map(|c| names(&c.text))
        .filter(|n| !COMMON_NAMES.contains(&n.as_str()))
        .collect()
}

/// Capitalised words of vote sentences that are not people.
const COMMON_NAMES: [&str; 14] = [
    "Voting",
    "Committee",
    "FOMC",
    "Federal",
    "Reserve",
    "Open",
    "Market",
    "President",
    "Governor",
    "Chairman",
    "Chair",
    "Vice",
    "Bank",
    "Board",
];

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

/// A sentence with what its citation tells the reader: the passage's date and section. The
/// answer shows both in its Sources, so they count as support for date words in the question.
pub fn with_context(sentence: &str, hit: &Hit) -> String {
    let date = hit
        .date
        .map(|d| format!("{}. ", d.long_form()))
        .unwrap_or_default();
    let section = hit
        .section
        .as_deref()
        .map(|s| format!("{s}. "))
        .unwrap_or_default();
    format!("{date}{section}{sentence}")
}

/// Whether a passage is of the minutes, by its file name or title.
fn is_minutes(h: &Hit) -> bool {
    h.document.to_lowercase().contains("minutes") || h.title.to_lowercase().contains("minutes")
}

/// Sentences of a meeting's procedure: approving the previous minutes, handing the directive to
/// the Desk, setting the next meeting, adjourning.
fn is_procedural(sentence: &str) -> bool {
    let s = sentence.to_lowercase();
    [
        "approved the minutes",
        "approve the minutes",
        "next meeting of the committee",
        "the meeting adjourned",
        "meeting adjourned at",
        // The vote that hands the directive to the New York Desk, at every meeting.
        "authorize and direct the federal reserve bank of new york",
    ]
    .iter()
    .any(|p| s.contains(p))
}

/// Lists of names (attendance, votes) answer no question: most of their words are capitalised.
fn is_name_list(sentence: &str) -> bool {
    let words: Vec<&str> = sentence.split_whitespace().collect();
    let capitalised = words
        .iter()
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .count();
    words.len() >= 8 && capitalised * 2 > words.len()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_sentence_run_into_the_next_repeats_it() {
        let quoted = "The Committee expects to begin implementing its balance sheet normalization program relatively soon.";
        let run = "The Committee expects to begin implementing its balance sheet normalization program relatively soon. Voting for this action: Janet L. Yellen, William C. Dudley, Lael Brainard, Charles L. Evans, Stanley Fischer, Patrick Harker.";
        assert!(repeats(quoted, run));
        assert!(repeats(run, quoted));
        assert!(!repeats(
            quoted,
            "The Committee decided to maintain the target range for the federal funds rate."
        ));
    }

    #[test]
    fn of_a_sentence_and_one_that_holds_it_the_shorter_is_shown() {
        let cand = |text: &str, hit: usize, score: f64| Candidate {
            text: text.into(),
            hit,
            position: 0,
            seq: 0,
            cue: 0.0,
            expansions: String::new(),
            procedural: false,
            score,
            vector: None,
        };
        let cands = [
            cand("The Committee expects to begin implementing its balance sheet normalization program relatively soon. Voting for this action: Janet L. Yellen, William C. Dudley, Lael Brainard.", 0, 1.0),
            cand("The Committee expects to begin implementing its balance sheet normalization program relatively soon.", 1, 0.9),
        ];
        assert_eq!(
            choose(&cands, &[0, 1], 3),
            vec![(1, vec![0])],
            "the longer one's passage is cited beside the shorter"
        );
    }

    #[test]
    fn a_sentence_leaning_on_the_one_before_brings_it_first() {
        let cand = |text: &str, hit: usize, seq: usize| Candidate {
            text: text.into(),
            hit,
            position: 0,
            seq,
            cue: 0.0,
            expansions: String::new(),
            procedural: false,
            score: 0.0,
            vector: None,
        };
        let cands = [
            cand(
                "Mr. Lacker dissented because he saw no gain from more stimulus.",
                0,
                4,
            ),
            cand(
                "Moreover, he expressed his opposition to the purchase of more MBS.",
                0,
                5,
            ),
            cand("Moreover, he would have preferred a shorter horizon.", 1, 5),
            cand("The Committee decided to buy more MBS.", 1, 0),
        ];
        // The pronoun's sentence is preceded by the one naming him; the antecedent does not
        // count towards the answer's length.
        assert_eq!(
            with_antecedents(vec![(1, vec![]), (3, vec![])], &cands, Asks::Vote, 2),
            vec![(0, vec![]), (1, vec![]), (3, vec![])]
        );
        // No sentence before it in its passage among the candidates: it stands alone.
        assert_eq!(
            with_antecedents(vec![(2, vec![])], &cands, Asks::Vote, 3),
            vec![(2, vec![])]
        );
        // An antecedent already chosen is not repeated.
        assert_eq!(
            with_antecedents(vec![(0, vec![]), (1, vec![])], &cands, Asks::Vote, 3),
            vec![(0, vec![]), (1, vec![])]
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
            text: text.into(),
            hit,
            position,
            seq: 0,
            cue,
            expansions: String::new(),
            procedural: false,
            score: 0.0,
            vector: None,
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

    #[test]
    fn name_lists_are_recognised() {
        assert!(is_name_list("Voting for the action were: Alan Greenspan, Chairman; Timothy F. Geithner, Vice Chairman; Susan S. Bies; Roger W. Ferguson, Jr."));
        assert!(!is_name_list("The Committee decided today to lower the target range for the federal funds rate to 0 to 1/4 percent."));
    }
}
