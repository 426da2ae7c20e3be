pub mod str;
