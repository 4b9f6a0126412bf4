"""The exact searches: on 0/1 columns (:mod:`.binary`, with its fair front search), over
every threshold of numeric columns (:mod:`.numeric`), the fair certificate over thresholds
(:mod:`.fair_thresholds`) and the CART start (:mod:`.cart_start`)."""
