// No schedule at all.
