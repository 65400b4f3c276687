;; symdp certificate for he2021uai.cmp_thm1_a_vs_nissim_stemmer (statement hash af03617362f0007a)
;; claim: 4*epsilon <= 13*epsilon
;; hypotheses: epsilon > 0, epsilon <= 1/10
;; box: none (all points satisfying the hypotheses)
;; expected result: unsat (the negated claim has no model)
(set-logic QF_NRA)
(declare-fun |epsilon| () Real)
(assert (> |epsilon| 0.0))
(assert (> |epsilon| 0.0))
(assert (<= |epsilon| (/ 1.0 10.0)))
;; negated claim: <= must hold, so its negation must be unsat
(assert (not (<= (* 4.0 |epsilon|) (* 13.0 |epsilon|))))
(check-sat)
