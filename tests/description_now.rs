//! Asked how conditions were described, the statement's sentence that describes them answers
//! before its sentences of what the Committee expects or will do, though those hold more of the
//! question's words: built on a generated statement, with the real index.

mod common;

use fathom::orchestrator::driver::Driver;
use std::sync::Arc;

/// A statement whose forward-looking sentences name the labour market more often than the one
/// describing it.
fn statement() -> String {
    String::from(
        "# FOMC statement, March 18, 2026\n\n\
         Job gains have been strong in recent months, and the unemployment rate has declined \
         substantially. Inflation remains elevated.\n\n\
         With appropriate firming, the Committee expects the labor market to remain strong and \
         labor market conditions to stay tight. The Committee will continue to assess labor \
         market conditions and the labor market outlook. In assessing the appropriate stance, \
         the Committee's assessments will take into account a wide range of information, \
         including readings on labor market conditions and the labor market.\n\n\
         The Committee decided to raise the target range for the federal funds rate to 1/4 to \
         1/2 percent.\n",
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn how_conditions_were_described_is_answered_by_the_sentence_describing_them() {
    let corpus = common::scratch("description-now-corpus");
    std::fs::write(corpus.join("2026-03-18_statement.md"), statement()).unwrap();
    let dir = common::scratch("description-now-index");
    let retriever = common::retriever_over(&corpus, &dir, None);
    let driver = Driver::qa(Arc::new(retriever), None, 2).unwrap();
    let (r, _) = common::ask_of(
        &driver,
        "How did the March 2026 statement describe the labor market?",
        vec![],
        vec![],
    )
    .await;
    let a = r.answer;
    assert!(a.starts_with("Job gains have been strong"), "{a}");
}
