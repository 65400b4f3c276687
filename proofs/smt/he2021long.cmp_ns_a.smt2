;; symdp certificate for he2021long.cmp_ns_a (statement hash ce4f60f8e1e41212)
;; claim: 9*epsilon <= 13*epsilon
;; hypotheses: True
;; box: none (all points satisfying the hypotheses)
;; expected result: unsat (the negated claim has no model)
(set-logic QF_NRA)
(declare-fun |epsilon| () Real)
(assert (> |epsilon| 0.0))
(assert true)
;; negated claim: <= must hold, so its negation must be unsat
(assert (not (<= (* 9.0 |epsilon|) (* 13.0 |epsilon|))))
(check-sat)
