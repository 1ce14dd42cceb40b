//! Synthesize: picks the sentences of the top chunks that best answer the question — query-term
//! coverage, dense similarity, the chunk's own rank, how strongly a sentence offers what is
//! asked ([`signals`]) — without repeats ([`choose`]), and composes them with `[n]` markers;
//! the citations are data beside the text. Offline it is extractive; the model half
//! ([`contract`]) writes the answer and streams it.
//!
//! Slice: the mode, sentence counts, the answer and its citations `[{n, chunk_id}]`.

mod acronyms;
mod anaphora;
mod choose;
mod contract;
mod cues;
mod learned;
mod long_sentence;
mod meeting;
mod member;
mod quarter;
mod ranker;
mod rate_move;
mod signals;

use crate::index::{Hit, SentenceVectors};
use crate::orchestrator::asks::{self, classify, Asks};
use crate::orchestrator::citations::with_markers;
use crate::orchestrator::contract::ModelContract;
use crate::orchestrator::stage::{r2, Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::stages::validate::support::{cited_passage, names, supports};
use crate::orchestrator::state::{AnswerSentence, Work};
use crate::orchestrator::text::{clean_sentence, is_whole_sentence, sentences};
use crate::orchestrator::topology::NodeId;
use crate::orchestrator::types::{Citation, IntentType};
use crate::query::pointer;
use choose::{
    choose, cited_hits_of, join_best, lead_with_best, redundant_roll_call, with_antecedents,
    with_dissenters_views,
};
use cues::{cue, names_month, names_other_meeting};
use meeting::{
    answer_hits, deliberation_passages, dissenters_passages, more_of_meeting, next_meeting_passage,
    unread_passage_saying, with_candidates,
};
use serde_json::json;
use signals::{hand_score, is_procedural, measure, topic_words, Setting};

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
/// Sentences a why may give beyond the three of other answers about one meeting.
const REASON_EXTRA_SENTENCES: usize = 2;
/// Passages of one named meeting read for its answer (the ranked ones first).
const MEETING_PASSAGES: usize = 10;
/// Passages naming a dissenter read beyond those, asked what the dissenter thought.
const DISSENTERS_PASSAGES: usize = 2;
/// Passages where the members weigh the action read beyond those, asked why.
const DELIBERATION_PASSAGES: usize = 2;

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
    /// Whether a blank line comes before it in its document (or may: the first sentence of a
    /// passage that no other passage read runs into), so the sentence before is another
    /// paragraph's.
    opens_paragraph: bool,
    score: f64,
    vector: Option<Vec<f32>>,
}

impl Candidate {
    /// A sentence of passage `hit` with nothing yet measured of it: no cue, no place in its
    /// document, no score or vector.
    fn new(text: impl Into<String>, hit: usize) -> Self {
        Candidate {
            text: text.into(),
            hit,
            position: 0,
            seq: 0,
            cue: 0.0,
            expansions: String::new(),
            procedural: false,
            opens_paragraph: true,
            score: 0.0,
            vector: None,
        }
    }
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
    // A why is often answered by more than one reason, and the minutes spread a decision's
    // reasons over several members' sentences.
    let max_sentences = if asks == Asks::Reason && !several {
        max_sentences + REASON_EXTRA_SENTENCES
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
    // Asked who dissented and also what they wanted, feared or thought.
    let vote_detail = asks == Asks::Vote && asks::asks_vote_detail(&question);
    // Asked that of one meeting, the passages naming its dissenters that did not rank are
    // read too.
    if let Some(date) = meeting.filter(|_| vote_detail) {
        let more = dissenters_passages(
            retriever.as_ref(),
            &question,
            &hits,
            date,
            DISSENTERS_PASSAGES,
        );
        hits.extend(more);
    }
    // Asked why one meeting did what it did, the passages where its members weigh the action
    // are read even when they did not rank.
    if let Some(date) = meeting.filter(|_| asks == Asks::Reason) {
        let more = deliberation_passages(
            retriever.as_ref(),
            &question,
            &hits,
            date,
            DELIBERATION_PASSAGES,
        );
        hits.extend(more);
    }
    // Asked when the next meeting was to be held, the minutes' closing sentence that sets it
    // is read even when it did not rank.
    let next_meeting = asks::asks_next_meeting_date(&question);
    if let Some(date) = meeting.filter(|_| next_meeting) {
        hits.extend(next_meeting_passage(retriever.as_ref(), &hits, date));
    }
    // Every question names the institution ("what did the FOMC …") and frames itself ("what
    // did … say at its meeting"); neither is what it is about, and weighed as a rare term
    // either would favour the one sentence that happens to spell it out.
    let q_terms = retriever.analyze(&topic_words(&format!("{} {}", cx.input.query, query)));
    let voted_for = asks::asks_who_voted_for(&question);
    let tally = asks == Asks::Vote && asks::asks_tally(&question);
    let mut cands = candidates(retriever.as_ref(), &hits, asks, voted_for, tally);
    // A meeting's passage is read when no sentence read so far offers what the question needs
    // and the passage does: asked who voted for the action, its roll call; asked for its policy
    // decision, the sentence setting the rate (a long vote quoting the statement does not
    // count: it is no sentence of the answer).
    let policy_decision = asks == Asks::Decision && asks::asks_policy_decision(&question);
    let needed: [(bool, meeting::Says, &str); 2] = [
        (voted_for, cues::lists_votes_for, meeting::ROLL_CALL_QUERY),
        (
            policy_decision,
            meeting::decides_rate_in_a_sentence,
            meeting::RATE_DECISION_QUERY,
        ),
    ];
    for (asked, says, hint) in needed {
        let Some(date) = meeting.filter(|_| asked) else {
            continue;
        };
        if cands.iter().any(|c| says(&c.text.to_lowercase())) {
            continue;
        }
        if let Some(h) =
            unread_passage_saying(retriever.as_ref(), &question, hint, &hits, date, says)
        {
            hits.push(h);
            cands = candidates(retriever.as_ref(), &hits, asks, voted_for, tally);
        }
    }
    cx.cancel.check()?;
    let mut model = None;
    if let Some(embedded) = match &work.retrieval.query_vec {
        Some(_) if !cands.is_empty() => embed(retriever.as_ref(), &cands)?,
        _ => None,
    } {
        for (c, v) in cands.iter_mut().zip(embedded.vectors) {
            c.vector = Some(v);
        }
        model = Some(embedded.model);
    }
    cx.cancel.check()?;
    if asks == Asks::Vote {
        second_vote_sentences(&mut cands);
    }
    // Why something was not done: waiting for more information is the reason given, and any
    // other reason-sounding sentence (why the economy moved) counts for less.
    if asks == Asks::Reason && asks::asks_why_not(&question) {
        offers_fully(&mut cands, cues::waits);
    }
    // What the Committee would do next: its stated readiness is the answer, and the action it
    // took today counts for less.
    if matches!(asks, Asks::Decision | Asks::Guidance) && asks::asks_what_next(&question) {
        offers_fully(&mut cands, cues::intends);
    }
    // Asked how many participants (or members) did something, a sentence counting them
    // ("Several participants favored …", "Two members preferred …") holds the figure asked
    // for, and any other counts for less.
    if let Some(who) = asks::counted_people(&question).filter(|_| asks == Asks::Amount) {
        offers_fully(&mut cands, |lower| cues::counts_people(lower, who));
    }
    // Asked for a figure of some month ("what unemployment rate for May did the June minutes
    // report?"), a sentence stating a figure of that month offers it fully, and any other
    // (the staff's projections, the meeting's own target) counts for less.
    let data_months = asks::data_months(&question);
    if asks == Asks::Amount && !data_months.is_empty() {
        offers_fully_as_written(&mut cands, |text| {
            cues::states_figure_of(text, &data_months)
        });
    }
    // Asked which Reserve Banks requested an action, the sentence naming whose requests were
    // approved answers; the action itself ("a 25 basis point increase in the discount rate")
    // counts for less.
    if asks::asks_requesters(&question) {
        offers_fully(&mut cands, cues::tells_requesters);
    }
    // Asked how sure the Committee was of something, a sentence saying how sure ("The extent
    // of these effects remains uncertain.") is the answer, and any other counts for less.
    if asks == Asks::Description && asks::asks_sureness(&question) {
        offers_fully(&mut cands, cues::tells_sureness);
    }
    // Asked what wording was taken out of the statement, the sentence telling of its removal
    // answers; asked why, it joins the reasons without discounting them.
    let removal_kind = matches!(
        asks,
        Asks::Decision | Asks::Description | Asks::Guidance | Asks::Reason
    );
    if removal_kind && asks::asks_removal(&question) {
        for c in &mut cands {
            if cues::removes_wording(&c.text.to_lowercase()) {
                c.cue = 1.0;
            } else if asks != Asks::Reason {
                c.cue *= 0.7;
            }
        }
    }
    if asks == Asks::Description {
        subject_cues(&question, &mut cands);
        decision_describes_nothing(&mut cands);
    }
    let setting = Setting {
        retriever: retriever.as_ref(),
        question: &question,
        query: &query,
        asks,
        q_terms: &q_terms,
        query_vec: work.retrieval.query_vec.as_deref(),
        meeting,
        hits: &hits,
        ranked: &work.retrieval.hits,
    };
    let signals = measure(&setting, &cands);
    let features = ranker::features(&cands, &signals, &hits);
    let scorer = score(
        &mut cands,
        &signals,
        features.as_deref(),
        asks,
        model.as_deref(),
    );
    let mut order: Vec<usize> = (0..cands.len()).collect();
    order.sort_by(|&a, &b| cands[b].score.total_cmp(&cands[a].score).then(a.cmp(&b)));
    // That sentence then answers first: its words ("the next meeting of the Committee would be
    // held on …") share little with the question's, and the directive's "following" or the
    // opening "a meeting … was held" would outrank it.
    if next_meeting {
        order.sort_by_key(|&i| !cues::sets_next_meeting(&cands[i].text.to_lowercase()));
    }
    // Asked who voted for the action, the roll call of those voting for it answers first: a
    // dissent or an unnamed minority's preference ("Two members preferred …") is a vote
    // sentence too, and can outrank it on the question's words.
    if voted_for {
        order.sort_by_key(|&i| !cues::lists_votes_for(&cands[i].text.to_lowercase()));
    }
    // Asked what was to happen during some months ("principal payments received during
    // September", "… in July and August"), a sentence naming another month and not that
    // period ("Effective in October, the Committee directs …", the period after it) answers
    // only after the others.
    let months = asks::period_months(&question);
    if !months.is_empty() {
        order.sort_by_key(|&i| {
            let lower = cands[i].text.to_lowercase();
            !cues::tells_of_period(&lower, &months) && cues::names_another_month(&lower, &months)
        });
    }
    // One meeting answers: the date of the best sentence (its statement and minutes alike).
    if !several {
        if let Some(date) = order.first().map(|&i| hits[cands[i].hit].date) {
            order.retain(|&i| hits[cands[i].hit].date == date);
        }
    }
    // Asked about a vote, a meeting's procedure (approving the minutes by notation vote, the
    // vote handing the directive to the Desk) joins no answer unless the question is about it
    // (`signals` leave it unflagged then), however its words match. (For other kinds its low
    // weight is enough: excluding it there lost amounts stated in the directive's vote.)
    // Asked how the directive's vote went ("did any member dissent from the directive?"), the
    // vote handing it to the Desk is what it asks about.
    let directive_tally = tally && question.to_lowercase().contains("directive");
    if asks == Asks::Vote {
        leave_out(&mut order, |i| {
            signals[i].procedural
                && !(directive_tally && cues::hands_directive(&cands[i].text.to_lowercase()))
        });
    }
    // "What reasons did Kashkari give for dissenting?": the dissenter a vote or a why names,
    // as the dissents and roll calls among the candidates spell them.
    let member = matches!(asks, Asks::Vote | Asks::Reason)
        .then(|| member::asked_about(&question, order.iter().map(|&i| cands[i].text.as_str())))
        .flatten();
    let what_next = asks::asks_what_next(&question);
    // Asked how something was described ("what was the FOMC's outlook for growth?"), a sentence
    // saying what policy will depend on ("the extent and timing of any additional firming that
    // may be needed … will depend on the evolution of the outlook") is guidance, not a
    // description, however many of the question's words it holds: it joins no answer.
    if asks == Asks::Description && !what_next {
        leave_out(&mut order, |i| {
            cues::conditions_policy(&cands[i].text.to_lowercase())
        });
    }
    // Asked how conditions were described ("how was the labor market described?"), a sentence
    // of what the Committee seeks, expects or will do holds the question's words without
    // describing anything: unless it also says how something stands ("… but the inflation
    // outlook remains highly uncertain"), it answers only after every sentence that does. Not
    // so when the question asks about the outlook, or about the Committee's own goal or
    // policy, which such a sentence describes.
    if asks == Asks::Description
        && !what_next
        && !asks::asks_outlook(&question)
        && !asks::asks_own_policy(&question)
    {
        order.sort_by_key(|&i| {
            let lower = cands[i].text.to_lowercase();
            cues::looks_ahead(&lower) && !cues::tells_how_it_stands(&lower)
        });
    }
    // Asked why (or anything of no kind), the statement's standing watch over what comes ("…
    // will continue to monitor the implications of incoming information …") is no meeting's
    // answer, however many of the question's words it holds: it joins no answer unless the
    // question asks what comes next.
    if matches!(asks, Asks::Reason | Asks::Other) && !what_next {
        leave_out(&mut order, |i| {
            cues::standing_watch(&cands[i].text.to_lowercase())
        });
    }
    // Asked why the Committee acted, the vote ("Voting against the action was Jeffrey M.
    // Lacker, who preferred …") is not its reason, unless the question names a dissenter.
    if asks == Asks::Reason && member.is_none() {
        leave_out(&mut order, |i| anaphora::records_votes(&cands[i].text));
    }
    let mut chosen = choose(&cands, &order, max_sentences, scorer.share());
    // A bare roll call ("Voting against this action: Jeffrey M. Lacker.") beside a sentence
    // that names the same dissenters says nothing new: it leaves the answer. Its place is not
    // refilled: the next sentence in line is often the meeting's procedure.
    if asks == Asks::Vote {
        while let Some(i) = redundant_roll_call(&chosen, &cands) {
            chosen.retain(|(j, _)| *j != i);
        }
    }
    // What trains the ranker: every candidate, its features and where it ranked (asked for by
    // `fathom eval --candidates`; never in a session).
    let recorded = cx
        .input
        .record_candidates
        .then(|| record(&cands, &hits, features.as_deref(), &order, model.as_deref()));
    // A schedule is answered with its month: if no chosen sentence names one, the best
    // sentence that does (and offers a start or an end) joins the answer.
    if asks == Asks::Schedule {
        join_best(
            &mut chosen,
            &order,
            max_sentences,
            |i| names_month(&cands[i].text),
            |i| cands[i].cue >= 1.0,
        );
    }
    // Asked for a meeting's policy decision, the sentence setting the rate with its figure
    // opens the answer: the statement's wording and the Board's rates share more of the
    // question's words ("decision", "members agreed") and rank above it.
    if policy_decision {
        lead_with_best(&mut chosen, &order, max_sentences, |i| {
            cues::decides_rate(&cands[i].text)
        });
    }
    // "Who dissented, and what worried him?": the answer names the dissenter *and* gives what
    // they preferred or feared; if no chosen sentence does, the best one that does joins.
    if vote_detail {
        let dissenters = dissenters(&cands);
        let gives_detail = |i: usize| {
            cues::states_preference(&cands[i].text)
                && names(&cands[i].text).iter().any(|n| dissenters.contains(n))
        };
        join_best(
            &mut chosen,
            &order,
            max_sentences,
            gives_detail,
            gives_detail,
        );
    }
    // Asked to describe several things at once ("household spending, business investment and
    // housing"), a thing no chosen sentence speaks of is given by the best sentence that does:
    // of those things, the one fewest sentences speak of ("fiscal", not the "stance" every
    // statement names).
    if asks == Asks::Description && asks::names_several(&question) {
        let asked = retriever.analyze(&signals::described_things(&question));
        let terms: Vec<Vec<String>> = cands.iter().map(|c| retriever.analyze(&c.text)).collect();
        let said = |t: &String| chosen.iter().any(|(i, _)| terms[*i].contains(t));
        let holders = |t: &String| order.iter().filter(|&&i| terms[i].contains(t)).count();
        let rarest = asked
            .iter()
            .filter(|t| !said(t) && holders(t) > 0)
            .min_by_key(|t| holders(t))
            .cloned();
        if let Some(t) = rarest {
            let speaks = |i: usize| terms[i].contains(&t);
            join_best(&mut chosen, &order, max_sentences, |_| false, speaks);
        }
    }
    // A question naming one dissenter gets the dissent that names them and the best sentence
    // of their own view ("In Mr. Kashkari's view, …"), each unless the answer holds one
    // already; the minutes give that view after the joint dissent and the roll call, which
    // alone do not answer.
    if let Some(name) = member.as_deref() {
        let dissent = |i: usize| member::dissent_by(&cands[i].text, name);
        join_best(&mut chosen, &order, max_sentences, dissent, dissent);
        let own = |i: usize| member::own_view(&cands[i].text, name);
        join_best(&mut chosen, &order, max_sentences, own, own);
    }
    let mut chosen = with_antecedents(
        chosen,
        &cands,
        &hits,
        asks,
        member.as_deref(),
        max_sentences,
    );
    // "How did the dissenter read inflation expectations?": the dissent gives who and what
    // they preferred; their view, asked about, is in the sentences naming them after it. A
    // vote question naming one dissenter ("what did Esther George say policy should do?")
    // asks for that view whatever its words.
    if vote_detail || (asks == Asks::Vote && member.is_some()) {
        chosen = with_dissenters_views(chosen, &cands, &hits, member.as_deref());
    }
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
            vector,
            ..Candidate::new(text, hits.len() - 1)
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
    // Asked when, the first sentence naming a quarter's end and no month is followed by the
    // month it means, worked out and so unmarked.
    let mut month_said = asks != Asks::Schedule;
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
        let month = (!month_said && !names_month(&c.text))
            .then(|| quarter::its_month(&c.text, hits[c.hit].date))
            .flatten();
        if let Some(said) = month {
            month_said = true;
            answer.sentences.push(AnswerSentence {
                display: said.clone(),
                text: said,
                citations: Vec::new(),
            });
            if let Some(v) = &c.vector {
                answer.vectors.push(v.clone());
            }
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
        "scored_by": scorer,
    }))
    .map(|mut slice| {
        if let Some(r) = recorded {
            slice["candidates"] = r;
        }
        slice
    })
}

/// The candidates as the ranker saw them, for training it: text, passage, features, the score
/// given and the rank in the answer's order (`null` for a sentence of another meeting).
fn record(
    cands: &[Candidate],
    hits: &[Hit],
    features: Option<&[Vec<f64>]>,
    order: &[usize],
    model: Option<&str>,
) -> serde_json::Value {
    json!({
        "model": model,
        "features": ranker::FEATURES,
        "rows": cands.iter().enumerate().map(|(i, c)| json!({
            "text": c.text,
            "document": hits[c.hit].document,
            "chunk_id": hits[c.hit].chunk_id,
            "position": c.position,
            "features": features.map(|f| f[i].clone()),
            "score": c.score,
            "rank": order.iter().position(|&j| j == i),
        })).collect::<Vec<_>>(),
    })
}

/// The sentences of the passages that may answer: whole sentences of 4 to 120 words (a vote
/// sentence that names its dissenters up to 250), not lists of names, each with how strongly it
/// offers what is asked (asked who voted for the decision, `voted_for`, the roll call of those
/// voting for it offers the answer fully; asked how the vote went, `tally`, so does any
/// sentence saying so).
fn candidates(
    retriever: &dyn crate::index::Retriever,
    hits: &[Hit],
    asks: Asks,
    voted_for: bool,
    tally: bool,
) -> Vec<Candidate> {
    let mut cands: Vec<Candidate> = Vec::new();
    let passages: Vec<_> = hits
        .iter()
        .map(|h| retriever.passage(&h.chunk_id))
        .collect();
    for (i, passage) in passages.iter().enumerate() {
        let Some(passage) = passage else {
            continue;
        };
        let base = passage.text.as_ptr() as usize;
        let defs = acronyms::definitions(&passage.text);
        // A passage cut out of a long paragraph begins a space after the one before it ends.
        let runs_on = passages.iter().flatten().any(|p| {
            p.document == passage.document
                && p.byte_end < passage.byte_start
                && passage.byte_start - p.byte_end <= 1
        });
        let mut previous_end = 0;
        for (seq, whole) in sentences(&passage.text).into_iter().enumerate() {
            let start = whole.as_ptr() as usize - base;
            let opens_paragraph = if seq == 0 {
                !runs_on
            } else {
                passage
                    .text
                    .get(previous_end.min(start)..start)
                    .is_some_and(|gap| gap.matches('\n').count() >= 2)
            };
            previous_end = start + whole.len();
            // A vote sentence that quotes the directive it adopted ("… in accordance with the
            // following domestic policy directive: "Effective November 9, 2018, … at an
            // offering rate of 2.00 percent …") is too long to answer; the quotation's first
            // sentence, the directive itself, may answer instead.
            // Likewise a vote the minutes run on from the attendance list before it ("…,
            // respectively Selection of Committee Officer By unanimous vote, the Committee
            // selected …").
            let s = if whole.split_whitespace().count() > LONGEST_WORDS {
                long_sentence::quoted_tail(whole)
                    .or_else(|| long_sentence::run_in_tail(whole, LONGEST_WORDS))
                    .unwrap_or(whole)
            } else {
                whole
            };
            // A resolution's terms in one long sentence ("Such operations shall: (i) mature no
            // later than …; (ii) be subject to an overall size limit of …; …") answer by their
            // first clauses, the rest marked as left out (the mark counts as a word).
            let text = match long_sentence::enumeration_head(s, LONGEST_WORDS - 1) {
                Some(head) => format!("{}; {}.", clean_sentence(head), long_sentence::LEFT_OUT),
                None => clean_sentence(s),
            };
            // The vote that introduces what was adopted ("… approved the following statement
            // for release by a 12 – 0 vote:") says how the vote went: asked that, it answers
            // as a sentence of its own.
            let text = match text.strip_suffix(':') {
                Some(head) if tally && cues::tells_tally(&head.to_lowercase()) => {
                    format!("{head}.")
                }
                _ => text,
            };
            let words = text.split_whitespace().count();
            let lower = text.to_lowercase();
            let roll_call = cues::lists_votes_for(&lower);
            let mut offers = cue(asks, &text);
            if voted_for && roll_call {
                offers = 1.0;
            }
            if tally && cues::tells_tally(&lower) {
                // Asked whether it was unanimous or how many backed it, the roll call says so
                // only by leaving names out; the sentence that says it outright comes first.
                offers = if roll_call && !voted_for && !lower.contains("by notation") {
                    0.7
                } else {
                    1.0
                };
            }
            // Minutes recount the last meeting's decision; it is not this meeting's.
            if matches!(asks, Asks::Rate | Asks::Decision)
                && hits[i]
                    .date
                    .is_some_and(|d| names_other_meeting(&text, u32::from(d.month)))
            {
                offers = 0.0;
            }
            // Long sentences are mostly run-on text, but one vote sentence can give three
            // dissenters and each one's view.
            let longest = if asks == Asks::Vote && offers >= 1.0 {
                250
            } else {
                LONGEST_WORDS
            };
            // A list of names is no answer, unless it is the list of who voted against, or
            // (asked who voted for the action or how the vote went) of who voted for it.
            let listed = (is_name_list(&text)
                && !(asks == Asks::Vote && (offers >= 1.0 || tally && roll_call)))
                || is_heading(&text);
            let long_enough = words >= 4 || (words == 3 && cues::states_briefly(&text));
            if long_enough && words <= longest && is_whole_sentence(&text) && !listed {
                cands.push(Candidate {
                    cue: offers,
                    expansions: acronyms::expansions(&text, &defs),
                    procedural: is_procedural(&text),
                    opens_paragraph,
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
    cands
}

/// The longest sentence, in words, that answers (but see the vote's exception).
const LONGEST_WORDS: usize = 120;

/// The candidates' vectors and the model that made them, each sentence embedded with what its
/// acronyms stand for ("the SRF" → "standing repurchase agreement facility"); `None` without a
/// model.
fn embed(
    retriever: &dyn crate::index::Retriever,
    cands: &[Candidate],
) -> Result<Option<SentenceVectors>, StageError> {
    let texts: Vec<String> = cands
        .iter()
        .map(|c| {
            format!("{} {}", c.text, c.expansions)
                .trim_end()
                .to_string()
        })
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    Ok(retriever.embed_sentences(&texts)?)
}

/// Gives the candidates whose lower-case text `offers` holds the full cue (they say what is
/// asked) and lowers every other's to 0.7 of what it was.
fn offers_fully(cands: &mut [Candidate], offers: impl Fn(&str) -> bool) {
    offers_fully_as_written(cands, |text| offers(&text.to_lowercase()));
}

/// [`offers_fully`], given each candidate's text as written: a month's name is told from a
/// word ("May", "may") only by its capital.
fn offers_fully_as_written(cands: &mut [Candidate], offers: impl Fn(&str) -> bool) {
    for c in cands {
        c.cue = if offers(&c.text) { 1.0 } else { c.cue * 0.7 };
    }
}

/// Leaves out of `order` the candidates `out` holds, unless none would be left.
fn leave_out(order: &mut Vec<usize>, out: impl Fn(usize) -> bool) {
    if order.iter().any(|&i| !out(i)) {
        order.retain(|&i| !out(i));
    }
}

/// What scored the candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
enum Scorer {
    /// The learned ranker ([`ranker`]).
    Learned,
    /// The hand-weighted score ([`signals::hand_score`]): the policy rate (its own rules answer
    /// it), no embedding model, or one the ranker was not trained with.
    Hand,
}

impl Scorer {
    /// How much of the best sentence's score another must have to join the answer: the hand
    /// score's 0.6; of the ranker's probabilities a quarter, which gives answers of about the
    /// same length (2.7 sentences against 2.5 on the tune sets) and leaves out the sentences it
    /// finds unlikely.
    fn share(self) -> f64 {
        match self {
            Scorer::Learned => 0.25,
            Scorer::Hand => 0.6,
        }
    }
}

/// Scores every candidate: by the learned ranker when it was trained with this embedding model
/// and for this kind of question, else by hand.
fn score(
    cands: &mut [Candidate],
    signals: &[signals::Signals],
    features: Option<&[Vec<f64>]>,
    asks: Asks,
    model: Option<&str>,
) -> Scorer {
    let learned = match (features, model.and_then(learned::ranker)) {
        (Some(x), Some(r)) if asks != Asks::Rate => x
            .iter()
            .map(|x| r.score(asks, x))
            .collect::<Option<Vec<f64>>>(),
        _ => None,
    };
    match learned {
        Some(scores) => {
            for (c, s) in cands.iter_mut().zip(scores) {
                // A probability, so that "at least 0.6 of the best" (choose) keeps its meaning.
                c.score = 1.0 / (1.0 + (-s).exp());
            }
            Scorer::Learned
        }
        None => {
            for (c, g) in cands.iter_mut().zip(signals) {
                c.score = hand_score(asks, g);
            }
            Scorer::Hand
        }
    }
}

/// The date every hit shares, if they share one.
fn one_meeting(hits: &[Hit]) -> Option<crate::corpus::Date> {
    let first = hits.first()?.date?;
    hits.iter().all(|h| h.date == Some(first)).then_some(first)
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

/// Asked how something was described ("how did the FOMC describe the economy when it cut
/// rates?"), the sentence deciding the rate is the occasion the question dates itself by, not
/// a description: it offers nothing asked.
fn decision_describes_nothing(cands: &mut [Candidate]) {
    for c in cands.iter_mut() {
        if cues::decides_rate(&c.text) {
            c.cue = 0.0;
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

/// A heading run into the text after it ("AUTHORIZATION FOR DOMESTIC OPEN MARKET OPERATIONS
/// (Amended effective on January 29, 2013) 1."): it opens with three words in capitals (an
/// acronym is one word: "FOMC participants …" is no heading).
fn is_heading(sentence: &str) -> bool {
    let shouted = |w: &&str| {
        let letters: Vec<char> = w.chars().filter(|c| c.is_alphabetic()).collect();
        letters.len() >= 2 && letters.iter().all(|c| c.is_uppercase())
    };
    sentence.split_whitespace().take(3).filter(shouted).count() == 3
}

/// Whether a passage is of the minutes, by its file name or title.
fn is_minutes(h: &Hit) -> bool {
    h.document.to_lowercase().contains("minutes") || h.title.to_lowercase().contains("minutes")
}

/// Lists of people's names (attendance, votes) answer no question: most of their words are
/// capitalised, and they give people by a title or a middle initial. A list of facilities or
/// central banks, capitalised as much, is what "which facilities …" asks for.
fn is_name_list(sentence: &str) -> bool {
    let words: Vec<&str> = sentence.split_whitespace().collect();
    let capitalised = words
        .iter()
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .count();
    let of_people = words.iter().any(|w| {
        let w = w.trim_end_matches([',', ';', ':']);
        let initial = w.len() == 2 && w.ends_with('.') && w.starts_with(char::is_uppercase);
        initial
            || matches!(
                w,
                "Mr." | "Ms." | "Mrs." | "Messrs." | "Dr." | "Jr." | "Chairman" | "Chair"
            )
    });
    words.len() >= 8 && capitalised * 2 > words.len() && of_people
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asked_for_a_description_the_rate_decision_offers_nothing() {
        let mut cands = [
            Candidate {
                cue: 0.6,
                ..Candidate::new(
                    "The Committee decided today to lower the target range for the federal funds rate to 1 to 1-1/4 percent.",
                    0,
                )
            },
            Candidate {
                cue: 0.6,
                ..Candidate::new("Job gains have slowed, and the unemployment rate has moved up.", 0)
            },
        ];
        decision_describes_nothing(&mut cands);
        assert_eq!(cands[0].cue, 0.0);
        assert_eq!(cands[1].cue, 0.6);
    }

    #[test]
    fn name_lists_and_headings_are_recognised() {
        assert!(is_name_list("Voting for the action were: Alan Greenspan, Chairman; Timothy F. Geithner, Vice Chairman; Susan S. Bies; Roger W. Ferguson, Jr."));
        assert!(!is_name_list("The Committee decided today to lower the target range for the federal funds rate to 0 to 1/4 percent."));
        assert!(is_name_list(
            "PRESENT: Mr. Greenspan, Chairman Mr. Ferguson Mr. Gramlich Mr. Jordan Mr. Kelley"
        ));
        assert!(is_heading("AUTHORIZATION FOR DOMESTIC OPEN MARKET OPERATIONS (Amended effective on January 29, 2013) 1."));
        assert!(!is_heading(
            "The FOMC and the ECB set up swap lines with the BOJ."
        ));
        // Facilities are not people.
        assert!(!is_name_list("These facilities include the Asset-Backed Commercial Paper Money Market Mutual Fund Liquidity Facility, the Commercial Paper Funding Facility, the Primary Dealer Credit Facility, and the Term Securities Lending Facility."));
    }
}
