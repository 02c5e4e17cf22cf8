//! Token counting shared by budgets, meters and limits.

/// About four characters a token, never fewer tokens than words.
///
/// Characters are Unicode scalar values, so text without spaces (JSON, long ids) is still counted
/// by its size rather than as one word.
pub fn count_tokens(text: &str) -> u32 {
    let chars = text.chars().count() as u64;
    let words = text.split_whitespace().count() as u64;
    let by_size = chars.div_ceil(4);
    by_size.max(words).min(u32::MAX as u64) as u32
}

/// Formats a count the way the screens and CLI print it: `2,000`.
pub fn format_count(n: u32) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// The meter line under every core: "1,240 of 2,000 tokens".
pub fn meter(tokens: u32, limit: u32) -> String {
    format!("{} of {} tokens", format_count(tokens), format_count(limit))
}

/// The running token count of items joined by newlines, as [`count_tokens`] counts
/// the joined text, without joining it again for every item.
#[derive(Debug, Default, Clone, Copy)]
pub struct TokenTally {
    items: u64,
    chars: u64,
    words: u64,
}

impl TokenTally {
    /// Adds `item` when the joined text stays within `budget` tokens; otherwise changes nothing.
    pub fn try_add(&mut self, item: &str, budget: u32) -> bool {
        let chars = self.chars + item.chars().count() as u64 + u64::from(self.items > 0);
        let words = self.words + item.split_whitespace().count() as u64;
        if chars.div_ceil(4).max(words) > u64::from(budget) {
            return false;
        }
        *self = TokenTally { items: self.items + 1, chars, words };
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn golden_sales_stages_is_eleven() {
        assert_eq!(count_tokens("Stages: New, Qualified, Proposal, Won, Lost."), 11);
    }

    #[test]
    fn empty_text_is_zero() {
        assert_eq!(count_tokens(""), 0);
        assert_eq!(count_tokens("   \n\t"), 2);
    }

    #[test]
    fn words_win_over_size_for_short_words() {
        // 9 one-letter words, 17 characters: ceil(17 / 4) = 5 < 9 words.
        assert_eq!(count_tokens("a b c d e f g h i"), 9);
    }

    #[test]
    fn text_without_spaces_counts_by_size() {
        let json = r#"{"id":"0193f3e2-7c1a-7d2b-9f00-5a3c9e1b2d44","stage":"Qualified"}"#;
        assert_eq!(count_tokens(json), (json.chars().count() as u32).div_ceil(4));
        assert!(count_tokens(json) > 10);
    }

    #[test]
    fn counts_scalar_values_not_bytes() {
        // Four scalar values, twelve bytes in UTF-8.
        assert_eq!(count_tokens("日本語字"), 1);
        assert_eq!(count_tokens("日本語字日"), 2);
    }

    #[test]
    fn formats_counts_with_separators() {
        assert_eq!(format_count(0), "0");
        assert_eq!(format_count(999), "999");
        assert_eq!(format_count(1000), "1,000");
        assert_eq!(format_count(2410), "2,410");
        assert_eq!(format_count(1234567), "1,234,567");
        assert_eq!(meter(11, 2000), "11 of 2,000 tokens");
    }

    proptest! {
        #[test]
        fn never_fewer_than_words(s in "\\PC{0,400}") {
            prop_assert!(count_tokens(&s) as usize >= s.split_whitespace().count());
        }

        #[test]
        fn never_fewer_than_a_quarter_of_chars(s in "\\PC{0,400}") {
            let chars = s.chars().count();
            prop_assert!(count_tokens(&s) as usize * 4 >= chars);
        }

        #[test]
        fn never_more_than_chars_when_nonempty(s in "\\PC{1,400}") {
            prop_assert!(count_tokens(&s) as usize <= s.chars().count());
        }

        #[test]
        fn appending_never_lowers_the_count(a in "\\PC{0,200}", b in "\\PC{0,200}") {
            let joined = format!("{a}{b}");
            prop_assert!(count_tokens(&joined) >= count_tokens(&a));
        }

        #[test]
        fn separators_round_trip(n in any::<u32>()) {
            prop_assert_eq!(format_count(n).replace(',', "").parse::<u32>().unwrap(), n);
        }
    }
}
