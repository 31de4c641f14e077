"""Documentation generators, one module each behind one interface (:mod:`.base`): detection,
configuration, navigation order, page ids, titles, link and anchor rules, metadata."""
