//! Asked what a dissenter thought, the answer reads on into the passages that name them, even
//! when those passages did not rank: built on a generated minutes file, with the real index.

mod common;

use fathom::corpus::ChunkOptions;
use fathom::index::embedded::EmbeddedRetriever;
use fathom::index::store::{build, BuildOptions, IndexStore};
use fathom::index::RetrievalSettings;
use fathom::orchestrator::driver::{AskRequest, Driver};
use std::fmt::Write as _;
use std::sync::Arc;

/// A paragraph of about 170 words on the outlook that shares the question's words ("risk",
/// "January", "2010") and names no member: many of them outrank the dissenter's later view.
fn outlook(n: usize) -> String {
    let mut p = format!("Participants discussed risk {n} to the outlook in January 2010.");
    for k in 0..16 {
        let _ = write!(
            p,
            " The risk of type {n}-{k} to spending and production was judged moderate by participants."
        );
    }
    p
}

/// Minutes of one meeting: the outlook, then the dissent, a paragraph naming no one, and the
/// dissenter's further view a paragraph later (in another passage), then more of the outlook.
fn minutes() -> String {
    let mut doc =
        String::from("# Minutes of the Federal Open Market Committee, January 27, 2010\n\n");
    for n in 0..8 {
        doc.push_str(&outlook(n));
        doc.push_str("\n\n");
    }
    doc.push_str(
        "Voting against this action: Thomas M. Hoenig. Mr. Hoenig dissented because he \
         believed it was no longer advisable to indicate that the federal funds rate would stay \
         exceptionally low for an extended period.\n\n",
    );
    let mut between = String::from("Housing activity had flattened out.");
    for k in 0..16 {
        let _ = write!(
            between,
            " Sales of existing homes in region {k} were little changed over the intermeeting period."
        );
    }
    doc.push_str(&between);
    doc.push_str(
        "\n\nMoreover, Mr. Hoenig was concerned that keeping rates this low could lead to a \
         build-up of financial imbalances.\n\n",
    );
    for n in 8..16 {
        doc.push_str(&outlook(n));
        doc.push_str("\n\n");
    }
    doc
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dissenters_view_in_a_passage_that_did_not_rank_is_read_and_given() {
    let corpus = common::scratch("dissent-views-corpus");
    std::fs::write(corpus.join("2010-01-27_minutes.md"), minutes()).unwrap();
    let dir = common::scratch("dissent-views-index");
    let opts = BuildOptions {
        corpus_root: &corpus,
        index_dir: &dir,
        embedder: None,
        chunking: ChunkOptions::default(),
        links: fathom::corpus::LinkPolicy::default(),
        rebuild: true,
    };
    build(&opts, &mut |_| {}).unwrap();
    let store = IndexStore::open(&dir).unwrap();
    let settings = RetrievalSettings {
        candidates: 50,
        rrf_k: 60.0,
        recency_boost: 0.0,
        recent_year_window: 3,
    };
    let retriever = EmbeddedRetriever::new(store, None, None, settings);
    let driver = Arc::new(Driver::qa(Arc::new(retriever), None, 2).unwrap());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (_cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
    let req = AskRequest {
        query: "Per the minutes of January 27, 2010, who dissented, and what risk did he see?"
            .into(),
        requested_years: vec![],
        session_id: "sess_test".into(),
        query_id: "q1".into(),
        context: vec![],
        record_candidates: false,
    };
    let r = driver.run(req, cancel_rx, &tx).await;
    drop(tx);
    while rx.recv().await.is_some() {}
    assert!(r.answer.contains("Mr. Hoenig dissented"), "{}", r.answer);
    // The view is a paragraph of housing data away from the dissent, in a passage whose words
    // are not the question's.
    assert!(r.answer.contains("financial imbalances"), "{}", r.answer);
}
