;; symdp certificate for dwork2015.thm19_pure_dp (statement hash 60486bee1add5d91)
;; claim: epsilon*n/log(2) <= epsilon*n/log(2)
;; hypotheses: none
;; box: none (all points satisfying the hypotheses)
;; reduction (oracle rr_max_information): group privacy: for eps-DP A and s, s' in Z^n, P(a|s) <= e^{n eps} P(a|s'), so P(a|s)/P(a) = P(a|s)/sum_{s'} P(s') P(a|s') <= e^{n eps} and I_inf(A, n) <= n eps log2 e
;; expected result: unsat (the negated claim has no model)
;; over-approximation notes: n: integer relaxed to a real >= 1
(set-logic QF_NRA)
(declare-fun |epsilon| () Real)
(declare-fun |n| () Real)
(declare-fun logc_1 () Real)
(assert (> |epsilon| 0.0))
(assert (>= |n| 1.0))
(assert (>= logc_1 (/ 173286795139986327354308030364544142018832704910549814897434569196963545585798112496640993618646983.0 250000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000.0)))
(assert (<= logc_1 (/ 173286795139986327354308030364544142018917362269577812162905430803036454414201887503359006381353017.0 250000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000.0)))
;; negated claim: <= must hold, so its negation must be unsat
(assert (not (<= (* |epsilon| |n| (/ 1.0 logc_1)) (* |epsilon| |n| (/ 1.0 logc_1)))))
(check-sat)
