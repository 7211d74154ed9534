"""What the review knows about each rule, as data: the rule catalogue and its readers."""
