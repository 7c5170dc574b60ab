"""Diagnosis: when compiled code crashes or changes the numbers, which compiler layer, op and
line does it, who is right (a float64 run), and which workarounds, proven on copies, help
(``diagnose``)."""
