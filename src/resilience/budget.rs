//! Token budget, ARCHITECTURE §4: for budget `b`, query tokens `q` and `l` loops, each loop gets
//! `b / max(1, l)` clamped to `[q + buffer, q * factor]`; [`allocate`] then splits one loop's
//! share between the completion, the fixed prompt and as many retrieved chunks as fit.
//!
//! Everything here is integer arithmetic that saturates instead of overflowing, so a huge or
//! hostile input gives a large budget, never a panic or a wrapped-around tiny one.

use serde::{Deserialize, Serialize};

/// Default tokens kept above the query's own size for each loop.
pub const DEFAULT_BUFFER: u32 = 1024;
/// Default ceiling of a loop's share, as a multiple of the query's size.
pub const DEFAULT_FACTOR: u32 = 128;
/// Completion size the allocator aims not to go below, when the loop's share allows it.
pub const MIN_COMPLETION_TOKENS: u32 = 64;

/// Estimates the token count of `text` without a tokenizer: about 4 characters per token (the
/// usual figure for English with BPE vocabularies), rounded up, but never fewer than the number
/// of whitespace-separated words, since short words are still a token each.
pub fn estimate_tokens(text: &str) -> u32 {
    let chars = text.chars().count();
    let words = text.split_whitespace().count();
    let estimate = chars.div_ceil(4).max(words);
    u32::try_from(estimate).unwrap_or(u32::MAX)
}

/// The budget settings of one query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetConfig {
    /// Tokens for the whole query, across loops.
    pub budget: u32,
    /// Tokens above the query's size that every loop gets at least.
    #[serde(default = "default_buffer")]
    pub buffer: u32,
    /// A loop never gets more than this many times the query's size.
    #[serde(default = "default_factor")]
    pub factor: u32,
    /// The most a stage may ask the model to generate.
    pub max_completion_tokens: u32,
}

fn default_buffer() -> u32 {
    DEFAULT_BUFFER
}

fn default_factor() -> u32 {
    DEFAULT_FACTOR
}

impl BudgetConfig {
    /// A configuration with the default buffer and factor.
    pub fn new(budget: u32, max_completion_tokens: u32) -> BudgetConfig {
        BudgetConfig {
            budget,
            buffer: DEFAULT_BUFFER,
            factor: DEFAULT_FACTOR,
            max_completion_tokens,
        }
    }
}

/// One loop's share: `budget / max(1, loops)` clamped to `[q + buffer, q * factor]`.
///
/// The lower bound wins over the budget on purpose: a loop with less than the query plus a
/// buffer cannot do useful work, so the loop gets that minimum even if the total overruns.
/// When `q * factor < q + buffer` (a short query, or a small factor) the bounds would be
/// inverted; the upper bound is then raised to the lower bound, so the result is `q + buffer`.
pub fn loop_budget(budget: u32, query_tokens: u32, loops: u32, buffer: u32, factor: u32) -> u32 {
    let per_loop = budget / loops.max(1);
    let lower = query_tokens.saturating_add(buffer);
    let upper = query_tokens.saturating_mul(factor).max(lower);
    per_loop.clamp(lower, upper)
}

/// How one loop's tokens are spent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenAllocation {
    /// The loop's share, from [`loop_budget`].
    pub loop_budget: u32,
    /// The `max_tokens` to ask the model for.
    pub completion_tokens: u32,
    /// Prompt overhead plus the chunks included (a truncated first chunk counts at its
    /// truncated size).
    pub prompt_tokens: u32,
    /// How many of the chunks, best first, go in the prompt.
    pub chunks_in_prompt: usize,
    /// Set when even the best chunk does not fit: it is included anyway (an answer needs at
    /// least one passage) and the caller truncates it to this many tokens.
    pub truncate_first_to: Option<u32>,
}

/// Splits one loop's share: the completion gets a third of it (at least
/// [`MIN_COMPLETION_TOKENS`] when the share allows, at most `max_completion_tokens`); what is
/// left after the prompt overhead holds the longest prefix of `chunk_tokens` (best first) that
/// fits, and always at least the first chunk when there is one.
///
/// A prefix, not a best-fit packing: skipping a long good chunk for a short worse one would
/// change the citation order the reranker chose.
pub fn allocate(
    cfg: &BudgetConfig,
    query_tokens: u32,
    loops: u32,
    prompt_overhead_tokens: u32,
    chunk_tokens: &[u32],
) -> TokenAllocation {
    let share = loop_budget(cfg.budget, query_tokens, loops, cfg.buffer, cfg.factor);
    let completion = (share / 3)
        .max(MIN_COMPLETION_TOKENS.min(share))
        .min(cfg.max_completion_tokens);
    let space = share
        .saturating_sub(completion)
        .saturating_sub(prompt_overhead_tokens);

    let mut used = 0u32;
    let mut count = 0usize;
    for &tokens in chunk_tokens {
        let next = used.saturating_add(tokens);
        if next > space {
            break;
        }
        used = next;
        count += 1;
    }

    let mut truncate_first_to = None;
    if count == 0 && !chunk_tokens.is_empty() {
        count = 1;
        used = space;
        truncate_first_to = Some(space);
    }

    TokenAllocation {
        loop_budget: share,
        completion_tokens: completion,
        prompt_tokens: prompt_overhead_tokens.saturating_add(used),
        chunks_in_prompt: count,
        truncate_first_to,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn estimate_counts_characters_and_words() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        // Rounded up: 5 characters are 2 tokens.
        assert_eq!(estimate_tokens("abcde"), 2);
        // Ten one-letter words are 19 characters (5 tokens by length) but 10 words.
        assert_eq!(estimate_tokens("a b c d e f g h i j"), 10);
        // Characters, not bytes: 8 two-byte letters are 2 tokens, not 4.
        assert_eq!(estimate_tokens("éééééééé"), 2);
    }

    #[test]
    fn clamps_to_the_lower_bound() {
        // 1000 / 1 is below q + buffer = 100 + 1024.
        assert_eq!(loop_budget(1000, 100, 1, 1024, 128), 1124);
    }

    #[test]
    fn clamps_to_the_upper_bound() {
        // 1_000_000 is above q * factor = 100 * 128.
        assert_eq!(loop_budget(1_000_000, 100, 1, 1024, 128), 12_800);
    }

    #[test]
    fn divides_by_loops() {
        assert_eq!(loop_budget(9000, 50, 3, 1024, 128), 3000);
        assert_eq!(loop_budget(9000, 50, 1, 1024, 128), 6400);
        assert_eq!(loop_budget(6000, 50, 2, 1024, 128), 3000);
    }

    #[test]
    fn zero_loops_count_as_one() {
        assert_eq!(
            loop_budget(5000, 50, 0, 1024, 128),
            loop_budget(5000, 50, 1, 1024, 128)
        );
        assert_eq!(loop_budget(5000, 50, 0, 1024, 128), 5000);
    }

    #[test]
    fn inverted_bounds_give_the_lower_bound() {
        // q * factor = 5 * 128 = 640 < q + buffer = 1029: whatever the budget, 1029.
        assert_eq!(loop_budget(100_000, 5, 1, 1024, 128), 1029);
        assert_eq!(loop_budget(0, 5, 1, 1024, 128), 1029);
        // A factor of 0 is the extreme case.
        assert_eq!(loop_budget(100_000, 300, 1, 1024, 0), 1324);
    }

    #[test]
    fn saturates_instead_of_overflowing() {
        assert_eq!(
            loop_budget(u32::MAX, u32::MAX, 1, u32::MAX, u32::MAX),
            u32::MAX
        );
        let a = allocate(
            &BudgetConfig::new(u32::MAX, u32::MAX),
            u32::MAX,
            1,
            u32::MAX,
            &[u32::MAX, u32::MAX],
        );
        assert_eq!(a.chunks_in_prompt, 1);
    }

    #[test]
    fn allocation_takes_the_prefix_that_fits() {
        // Share 6400 (budget 10_000, q 50 * 128); completion 6400 / 3 = 2133, capped at 1000;
        // space = 6400 - 1000 - 400 = 5000.
        let cfg = BudgetConfig::new(10_000, 1000);
        let a = allocate(&cfg, 50, 1, 400, &[2000, 2000, 1000, 1, 1]);
        assert_eq!(a.loop_budget, 6400);
        assert_eq!(a.completion_tokens, 1000);
        assert_eq!(a.chunks_in_prompt, 3);
        assert_eq!(a.prompt_tokens, 5400);
        assert_eq!(a.truncate_first_to, None);

        // Stops at the first chunk that does not fit, even if a later one would.
        let a = allocate(&cfg, 50, 1, 400, &[2000, 3500, 10]);
        assert_eq!(a.chunks_in_prompt, 1);
        assert_eq!(a.prompt_tokens, 2400);
    }

    #[test]
    fn completion_is_a_third_with_a_floor() {
        // Share 1124 (lower bound): a third is 374.
        let a = allocate(&BudgetConfig::new(0, 4096), 100, 1, 0, &[]);
        assert_eq!(a.completion_tokens, 374);
        // A tiny share (buffer 0, q 100, factor 1): a third is 33, the floor lifts it to 64.
        let cfg = BudgetConfig {
            budget: 0,
            buffer: 0,
            factor: 1,
            max_completion_tokens: 4096,
        };
        assert_eq!(allocate(&cfg, 100, 1, 0, &[]).completion_tokens, 64);
        // A share below the floor: all of it.
        assert_eq!(allocate(&cfg, 40, 1, 0, &[]).completion_tokens, 40);
        // The cap wins over the floor.
        let capped = BudgetConfig {
            max_completion_tokens: 10,
            ..cfg
        };
        assert_eq!(allocate(&capped, 100, 1, 0, &[]).completion_tokens, 10);
    }

    #[test]
    fn first_chunk_is_always_included_and_truncated() {
        let cfg = BudgetConfig::new(0, 4096);
        // Share 1124, completion 374, overhead 500: 250 tokens of space for a 900-token chunk.
        let a = allocate(&cfg, 100, 1, 500, &[900, 10]);
        assert_eq!(a.chunks_in_prompt, 1);
        assert_eq!(a.truncate_first_to, Some(250));
        assert_eq!(a.prompt_tokens, 750);
        // No chunks, nothing included.
        let a = allocate(&cfg, 100, 1, 500, &[]);
        assert_eq!(a.chunks_in_prompt, 0);
        assert_eq!(a.prompt_tokens, 500);
    }

    #[test]
    fn allocation_serialises_for_cached_state() {
        let a = allocate(&BudgetConfig::new(10_000, 1000), 50, 1, 400, &[100]);
        let json = serde_json::to_value(a).expect("serialises");
        assert_eq!(json["loop_budget"], 6400);
        assert_eq!(json["chunks_in_prompt"], 1);
        let cfg: BudgetConfig =
            serde_json::from_str(r#"{"budget": 8000, "max_completion_tokens": 512}"#)
                .expect("deserialises");
        assert_eq!(cfg, BudgetConfig::new(8000, 512));
    }

    fn config() -> impl Strategy<Value = BudgetConfig> {
        (0u32..200_000, 0u32..4096, 0u32..256, 0u32..8192).prop_map(
            |(budget, buffer, factor, max_completion_tokens)| BudgetConfig {
                budget,
                buffer,
                factor,
                max_completion_tokens,
            },
        )
    }

    proptest! {
        #[test]
        fn loop_budget_is_within_its_bounds(
            budget in any::<u32>(), q in 0u32..100_000, loops in 0u32..10,
            buffer in 0u32..10_000, factor in 0u32..512,
        ) {
            let b = loop_budget(budget, q, loops, buffer, factor);
            let lower = q.saturating_add(buffer);
            prop_assert!(b >= lower);
            prop_assert!(b <= q.saturating_mul(factor).max(lower));
            // Inside the bounds it is exactly the per-loop share.
            let share = budget / loops.max(1);
            if share >= lower && share <= q.saturating_mul(factor) {
                prop_assert_eq!(b, share);
            }
        }

        #[test]
        fn allocation_is_monotone_in_budget(
            cfg in config(), extra in 0u32..100_000, q in 0u32..500, loops in 0u32..5,
            overhead in 0u32..4000, chunks in proptest::collection::vec(0u32..3000, 0..20),
        ) {
            let small = allocate(&cfg, q, loops, overhead, &chunks);
            let bigger = BudgetConfig { budget: cfg.budget.saturating_add(extra), ..cfg };
            let large = allocate(&bigger, q, loops, overhead, &chunks);
            prop_assert!(large.loop_budget >= small.loop_budget);
            prop_assert!(large.completion_tokens >= small.completion_tokens);
            prop_assert!(large.chunks_in_prompt >= small.chunks_in_prompt);
        }

        #[test]
        fn chunks_fit_except_the_guaranteed_first(
            cfg in config(), q in 0u32..500, loops in 0u32..5, overhead in 0u32..4000,
            chunks in proptest::collection::vec(0u32..3000, 0..20),
        ) {
            let a = allocate(&cfg, q, loops, overhead, &chunks);
            prop_assert!(a.completion_tokens <= cfg.max_completion_tokens);
            prop_assert!(a.chunks_in_prompt <= chunks.len());
            let space = a.loop_budget
                .saturating_sub(a.completion_tokens)
                .saturating_sub(overhead);
            let used: u32 = chunks[..a.chunks_in_prompt].iter().sum();
            if chunks.is_empty() {
                prop_assert_eq!(a.chunks_in_prompt, 0);
            } else if used > space {
                // Only the guaranteed first chunk may overflow, and then it is truncated.
                prop_assert_eq!(a.chunks_in_prompt, 1);
                prop_assert_eq!(a.truncate_first_to, Some(space));
                prop_assert_eq!(a.prompt_tokens, overhead + space);
            } else {
                prop_assert!(a.chunks_in_prompt >= 1);
                prop_assert_eq!(a.truncate_first_to, None);
                prop_assert_eq!(a.prompt_tokens, overhead + used);
                // Maximal: the next chunk would not have fitted.
                if let Some(&next) = chunks.get(a.chunks_in_prompt) {
                    prop_assert!(used + next > space);
                }
            }
        }
    }
}
