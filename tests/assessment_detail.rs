//! "… the Committee will assess realized and expected economic conditions … This assessment
//! will take into account a wide range of information, including …": the second sentence is
//! what a reader asking what the Committee would weigh wants, though its words score low. Asked
//! of four real statements that all carry it, the answer gives it after the first: the real
//! index and embedding model.

mod common;

use fathom::index::embed::{EmbedOptions, Embedder};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_an_assessment_takes_into_account_follows_the_assessment() {
    let corpus = common::fomc_subset(
        "assessment-detail-corpus",
        &[
            "2016-09-21_statement.md",
            "2016-11-02_statement.md",
            "2016-12-14_statement.md",
            "2017-02-01_statement.md",
        ],
    );
    let dir = common::scratch("assessment-detail-index");
    let embedder = Embedder::load(&common::model_dir(), EmbedOptions::default()).unwrap();
    let retriever = common::retriever_over(&corpus, &dir, Some(embedder));
    let driver =
        fathom::orchestrator::driver::Driver::qa(std::sync::Arc::new(retriever), None, 2).unwrap();
    let question = "December 2016 statement: what information would feed the Committee's \
                    assessment when it set the timing and size of future rate changes?";
    let a = common::ask_of(&driver, question, vec![], vec![])
        .await
        .0
        .answer;
    let assess = a.find("the Committee will assess realized and expected");
    let detail = a.find("This assessment will take into account a wide range of information");
    assert!(
        matches!((assess, detail), (Some(x), Some(y)) if x < y),
        "{a}"
    );
    assert!(
        a.contains("financial and international developments"),
        "{a}"
    );
}
