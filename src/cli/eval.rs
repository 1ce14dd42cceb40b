//! `fathom eval`: retrieval quality on a BEIR dataset or a file of questions with cited files;
//! with `--answers`, the whole pipeline's answers on those questions; with `--judgement`, which
//! inputs get a direct reply and which a retrieved answer. Each dataset gets its own index under
//! `<data dir>/eval/<name>`, reused across runs.

use super::index::index_corpus;
use super::UsageError;
use anyhow::Context;
use fathom::config::Config;
use fathom::eval::{answers, beir, judgement, multidoc, qa};
use fathom::index::open::{load_embedder, open_retriever, EmbedderStatus};
use fathom::index::Retriever;
use fathom::index::SearchMode;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    /// A BEIR-layout folder: corpus.jsonl, queries.jsonl, qrels/*.tsv.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["qa", "judgement"])]
    beir: Option<PathBuf>,
    /// Relevance judgements to use (default qrels/test.tsv, or the only .tsv in qrels/).
    #[arg(long, value_name = "FILE", requires = "beir")]
    qrels: Option<PathBuf>,
    /// A JSON-lines file of questions with `question`, `cites` and optional `year`; needs --corpus.
    #[arg(long, value_name = "FILE")]
    qa: Option<PathBuf>,
    /// With --qa: run the whole pipeline on each question and check the answer and citations.
    #[arg(long, requires = "qa")]
    answers: bool,
    /// With --answers: write every candidate sentence of every answer, with the ranker's
    /// features, to this JSON-lines file (what scripts/train_ranker.py reads).
    #[arg(long, value_name = "FILE", requires = "answers")]
    candidates: Option<PathBuf>,
    /// With --qa: only the items whose `source` is this (`statement` or `minutes`).
    #[arg(long, value_name = "SOURCE", requires = "qa")]
    source: Option<String>,
    /// A JSON-lines file of inputs with `input` and `expect` (`reply` or `answer`): checks which
    /// get a direct reply and which a retrieved answer; needs --corpus.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["qa", "multidoc"])]
    judgement: Option<PathBuf>,
    /// A JSON-lines file of questions that need several documents (eval/MULTIDOC.md): runs each
    /// and reports sides cited, figures stated, citation precision and latency; needs --corpus.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["qa", "beir"])]
    multidoc: Option<PathBuf>,
    /// Cut-off for nDCG.
    #[arg(long, default_value_t = 10)]
    k: usize,
    #[arg(long)]
    json: bool,
}

pub fn run(cfg: &Config, args: &EvalArgs) -> anyhow::Result<ExitCode> {
    if let Some(file) = &args.multidoc {
        return run_multidoc(cfg, file, args);
    }
    match (&args.beir, &args.qa, &args.judgement) {
        (Some(dir), None, None) => run_beir(cfg, dir, args),
        (None, Some(file), None) => run_qa(cfg, file, args),
        (None, None, Some(file)) => run_judgement(cfg, file, args),
        _ => Err(UsageError(
            "give --beir DIR, --qa FILE --corpus DIR, --multidoc FILE --corpus DIR or --judgement FILE --corpus DIR".into(),
        )
        .into()),
    }
}

/// A copy of the config whose data dir is `<data dir>/eval/<name>`.
fn eval_config(cfg: &Config, name: &str) -> Config {
    let mut c = cfg.clone();
    c.paths.data_dir = cfg.paths.data_dir.join("eval").join(name);
    c
}

fn folder_name(p: &Path) -> String {
    std::fs::canonicalize(p)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "dataset".into())
}

fn run_beir(cfg: &Config, dir: &Path, args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let data = beir::load(dir, args.qrels.as_deref())?;
    let ecfg = eval_config(cfg, &format!("beir-{}", folder_name(dir)));
    let corpus_dir = ecfg.paths.data_dir.join("corpus");
    let doc_of = beir::write_corpus(&data, &corpus_dir)?;
    let status = load_embedder(&ecfg);
    if let Some(n) = status.notice() {
        errln!("note: {n}");
    }
    let report = index_corpus(&ecfg, &corpus_dir, status.embedder(), false, args.json)?;
    errln!(
        "index: {} documents, {} chunks, {:.1} s",
        report.documents,
        report.chunks,
        report.seconds
    );
    let mut retriever_cfg = ecfg.clone();
    retriever_cfg.retrieval.candidates = retriever_cfg.retrieval.candidates.max(100);
    let retriever = open_retriever(&retriever_cfg, status.into_embedder())?;
    let modes: Vec<SearchMode> = if retriever.dense_enabled() {
        SearchMode::ALL.to_vec()
    } else {
        vec![SearchMode::Sparse]
    };
    let scores = beir::evaluate(&retriever, &data, &doc_of, args.k, &modes)?;
    if args.json {
        let out = serde_json::json!({
            "dataset": dir.display().to_string(),
            "documents": report.documents,
            "chunks": report.chunks,
            "reranker": retriever.info().reranker,
            "modes": scores,
        });
        super::print_json(&serde_json::to_string_pretty(&out)?);
    } else {
        outln!(
            "{} · {} judged queries · reranker {}",
            dir.display(),
            scores.first().map_or(0, |s| s.queries),
            retriever.info().reranker
        );
        outln!(
            "{:<15} {:>9} {:>11} {:>8} {:>10}",
            "mode",
            format!("nDCG@{}", args.k),
            "recall@100",
            "MRR@10",
            "ms/query"
        );
        for s in &scores {
            outln!(
                "{:<15} {:>9.4} {:>11.4} {:>8.4} {:>10.2}",
                s.mode,
                s.ndcg_at_10,
                s.recall_at_100,
                s.mrr_at_10,
                s.ms_per_query
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The engine over `corpus`, indexed under `<data dir>/eval/qa-<corpus folder>` (shared with
/// `--qa`).
fn corpus_engine(cfg: &Config, json: bool) -> anyhow::Result<fathom::orchestrator::api::Engine> {
    let corpus = super::corpus_dir(cfg)?;
    let (ecfg, status) = indexed_eval_config(cfg, &corpus, json)?;
    drop(status);
    super::ask::engine(&ecfg, true)
}

fn run_multidoc(cfg: &Config, file: &Path, args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let items = multidoc::load(file)?;
    let engine = corpus_engine(cfg, args.json)?;
    let s = runtime()?.block_on(multidoc::evaluate(&engine, &items));
    if args.json {
        super::print_json(&serde_json::to_string_pretty(
            &serde_json::json!({ "file": file.display().to_string(), "multidoc": s }),
        )?);
        return Ok(ExitCode::SUCCESS);
    }
    outln!("{} · {} questions", file.display(), s.items);
    outln!("cites every side asked for:  {:.3}", s.cite_every_side);
    outln!("states every figure:         {:.3}", s.state_every_figure);
    outln!("citation precision:          {:.3}", s.citation_precision);
    outln!("planned intent as expected:  {:.3}", s.intent_agreement);
    outln!(
        "latency: median {:.0} ms, p95 {:.0} ms",
        s.median_ms,
        s.p95_ms
    );
    for (intent, (n, sides, figs)) in &s.by_intent {
        outln!("  {intent:<12} {n:>3} questions · every side {sides:.2} · every figure {figs:.2}");
    }
    for d in s.details.iter().filter(|d| !d.missing.is_empty()) {
        outln!(
            "  {} ({:?} planned {:?}, {} tasks): {}",
            d.id,
            d.intent,
            d.planned_intent,
            d.tasks,
            d.missing.join("; ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn run_qa(cfg: &Config, file: &Path, args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let corpus = super::corpus_dir(cfg)?;
    let mut items = qa::load(file)?;
    if let Some(source) = &args.source {
        items.retain(|i| i.source.as_deref() == Some(source.as_str()));
        if items.is_empty() {
            return Err(UsageError(format!(
                "no item of {} has source {source:?}",
                file.display()
            ))
            .into());
        }
    }
    let (ecfg, status) = indexed_eval_config(cfg, &corpus, args.json)?;
    if args.answers {
        let engine = super::ask::engine(&ecfg, true)?;
        let mut out = match &args.candidates {
            Some(path) => Some(std::io::BufWriter::new(
                std::fs::File::create(path)
                    .with_context(|| format!("cannot create {}", path.display()))?,
            )),
            None => None,
        };
        let scores = runtime()?.block_on(answers::evaluate_answers(
            &engine,
            &items,
            out.as_mut().map(|w| w as &mut dyn std::io::Write),
        ))?;
        if let Some(mut w) = out {
            std::io::Write::flush(&mut w)?;
        }
        if args.json {
            super::print_json(&serde_json::to_string_pretty(&serde_json::json!({
                "file": file.display().to_string(),
                "source": args.source,
                "answers": scores
            }))?);
        } else {
            print_answers(file, args.source.as_deref(), &scores);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let retriever = open_retriever(&ecfg, status.into_embedder())?;
    let scores = qa::evaluate_retrieval(&retriever, &items)?;
    if args.json {
        super::print_json(&serde_json::to_string_pretty(
            &serde_json::json!({ "file": file.display().to_string(), "retrieval": scores }),
        )?);
    } else {
        outln!(
            "{} · {} questions · reranker {}",
            file.display(),
            items.len(),
            retriever.info().reranker
        );
        outln!(
            "{:<12} {:>7} {:>7} {:>10}",
            "year filter",
            "hit@1",
            "hit@5",
            "median ms"
        );
        for s in &scores {
            outln!(
                "{:<12} {:>7.3} {:>7.3} {:>10.2}",
                s.year_filter,
                s.hit_at_1,
                s.hit_at_5,
                s.median_ms
            );
        }
        if let Some(s) = scores.first().filter(|s| !s.misses.is_empty()) {
            outln!(
                "not in the top 5 without a year filter: {}",
                s.misses.join(", ")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The eval config for a question set over `corpus`, with the corpus indexed (reused when
/// unchanged).
fn indexed_eval_config(
    cfg: &Config,
    corpus: &Path,
    json: bool,
) -> anyhow::Result<(Config, EmbedderStatus)> {
    let ecfg = eval_config(cfg, &format!("qa-{}", folder_name(corpus)));
    let status = load_embedder(&ecfg);
    if let Some(n) = status.notice() {
        errln!("note: {n}");
    }
    let report = index_corpus(&ecfg, corpus, status.embedder(), false, json)?;
    errln!(
        "index: {} documents, {} chunks, {:.1} s",
        report.documents,
        report.chunks,
        report.seconds
    );
    Ok((ecfg, status))
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?)
}

fn pct(x: f64) -> String {
    format!("{:.1} %", 100.0 * x)
}

fn print_answers(file: &Path, source: Option<&str>, s: &answers::QaAnswerScores) {
    let only = source.map(|s| format!(" (source {s})")).unwrap_or_default();
    outln!(
        "{}{only} · {} questions · whole pipeline (offline)",
        file.display(),
        s.items
    );
    match s.correct {
        Some(c) => outln!(
            "correct:            {} of {} checkable",
            pct(c),
            s.checkable
        ),
        None => outln!("correct:            n/a (no expected values)"),
    }
    outln!("cited:              {}", pct(s.cited));
    match s.citation_precision {
        Some(p) => outln!(
            "citation precision: {p:.3} ({} sentence-citation pairs; {} answers kept an unsupported only citation)",
            s.citation_pairs, s.kept_unsupported
        ),
        None => outln!("citation precision: n/a (no citations)"),
    }
    outln!("clean text:         {}", pct(s.clean_text));
    outln!(
        "latency:            median {:.0} ms, p95 {:.0} ms",
        s.median_ms,
        s.p95_ms
    );
    outln!("final reasons:      {:?}", s.final_reasons);
    outln!(
        "retrieval mean relevance p10/p50/p90: {:?}",
        s.relevance_quantiles
    );
    outln!(
        "answer confidence p10/p50/p90:        {:?}",
        s.confidence_quantiles
    );
    for (title, table) in [("kind", &s.by_kind), ("source", &s.by_source)] {
        if table.len() < 2 && table.keys().all(|k| k == "unlabelled") {
            continue;
        }
        outln!(
            "{:<12} {:>5} {:>9} {:>8}",
            title,
            "items",
            "correct",
            "cited"
        );
        for (k, b) in table {
            let correct = b.correct_rate().map_or("n/a".to_string(), pct);
            outln!(
                "{:<12} {:>5} {:>9} {:>8}",
                k,
                b.items,
                correct,
                pct(b.cited_rate())
            );
        }
    }
    for f in &s.failures {
        outln!("  {f}");
    }
    for u in &s.unsupported {
        outln!("  unsupported {u}");
    }
    for p in &s.text_problems {
        outln!("  text {p}");
    }
}

fn run_judgement(cfg: &Config, file: &Path, args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let items = judgement::load(file)?;
    let engine = corpus_engine(cfg, args.json)?;
    let s = runtime()?.block_on(judgement::evaluate(&engine, &items));
    if args.json {
        super::print_json(&serde_json::to_string_pretty(
            &serde_json::json!({ "file": file.display().to_string(), "judgement": s }),
        )?);
    } else {
        outln!(
            "{} · {} inputs · whole pipeline (offline)",
            file.display(),
            s.items
        );
        outln!("handled as expected: {} ", pct(s.accuracy));
        outln!(
            "direct reply:        {} of {} expected",
            s.reply_correct,
            s.reply_items
        );
        outln!(
            "retrieved answer:    {} of {} expected",
            s.answer_correct,
            s.answer_items
        );
        outln!(
            "latency:             median {:.0} ms, p95 {:.0} ms",
            s.median_ms,
            s.p95_ms
        );
        for f in &s.failures {
            outln!("  {f}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
