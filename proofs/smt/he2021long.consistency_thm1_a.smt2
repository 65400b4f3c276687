;; symdp certificate for he2021long.consistency_thm1_a (statement hash 5a2e33b456dfb252)
;; claim: 4*epsilon <= 9*epsilon
;; hypotheses: True, epsilon <= 1/5
;; box: none (all points satisfying the hypotheses)
;; expected result: unsat (the negated claim has no model)
(set-logic QF_NRA)
(declare-fun |epsilon| () Real)
(assert (> |epsilon| 0.0))
(assert true)
(assert (<= |epsilon| (/ 1.0 5.0)))
;; negated claim: <= must hold, so its negation must be unsat
(assert (not (<= (* 4.0 |epsilon|) (* 9.0 |epsilon|))))
(check-sat)
