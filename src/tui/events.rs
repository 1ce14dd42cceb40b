//! What the orchestrator's events do to the state: the running turn's stages, streamed answer,
//! final result; the breakers; fetched passages.

use crate::orchestrator::api::{Event, OrchestrationResult};
use crate::tui::app::App;
use crate::tui::turn::LiveStage;

pub fn apply(app: &mut App, event: Event) {
    match event {
        Event::QueryStarted { query_id, .. } => {
            if app.running.is_some() {
                app.running = Some(query_id.clone());
                if let Some(t) = app.turns.last_mut() {
                    t.query_id = Some(query_id);
                }
            }
        }
        Event::StageStarted {
            stage, loop_index, ..
        } => {
            if let Some(t) = app.running_turn_mut() {
                t.stage_started(stage, loop_index);
            }
        }
        Event::StageFinished {
            stage,
            ms,
            status,
            fallback,
            loop_index,
            ..
        } => {
            let finished = LiveStage::Finished {
                status,
                ms,
                fallback,
                loop_index,
            };
            if let Some(t) = app.running_turn_mut() {
                t.stage_finished(stage, finished);
            }
        }
        Event::AnswerToken { text, .. } => {
            if let Some(t) = app.running_turn_mut() {
                t.answer.push_str(&text);
            }
        }
        Event::AnswerReset { .. } => {
            if let Some(t) = app.running_turn_mut() {
                t.answer.clear();
            }
        }
        Event::Breaker { snapshot, .. } => app.set_breaker(snapshot),
        Event::Finished { result } => finished(app, *result),
        Event::Cancelled { .. } => {
            if let Some(t) = app.running_turn_mut() {
                t.cancelled = true;
            }
            app.running = None;
        }
        Event::Rejected { reason } => {
            if let Some(t) = app.running_turn_mut() {
                t.rejected = Some(reason);
            }
            app.running = None;
        }
        Event::Passage { chunk_id, passage } => app.add_passage(chunk_id, passage.map(|p| *p)),
        Event::Graph { update, .. } => {
            if let Some(t) = app.running_turn_mut() {
                t.graph.get_or_insert_with(Default::default).apply(&update);
            }
        }
    }
}

/// The result goes to the turn that asked for it (by query id, else the running one); the
/// query is over once the latest turn has its result.
fn finished(app: &mut App, result: OrchestrationResult) {
    let target = app
        .turns
        .iter()
        .rposition(|t| t.query_id.as_deref() == Some(result.query_id.as_str()))
        .or_else(|| app.running.as_ref().and(app.turns.len().checked_sub(1)));
    if let Some(i) = target {
        app.turns[i].finish(result);
        if i + 1 == app.turns.len() {
            app.running = None;
        }
    }
}
