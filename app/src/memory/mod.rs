//! Profile → Memory: the person's own cards (pin, forget, refresh, pin back), their private notes
//! and Prepare my day.

pub mod forget_card;
pub mod keep_note;
pub mod load_my_memory;
pub mod my_memory_page;
pub mod pin_back;
pub mod pin_card;
pub mod refresh_card;
pub mod save_prepare;
pub mod set_own_key;
