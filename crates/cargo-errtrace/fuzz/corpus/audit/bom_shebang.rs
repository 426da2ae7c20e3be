#!/usr/bin/env run
fn main() {}
