;; symdp certificate for classical.dwork_rothblum2016_kl (statement hash 47d05a3ed2107db1)
;; claim: epsilon*tanh(epsilon/2) <= epsilon*(exp(epsilon) - 1)/2
;; hypotheses: epsilon > 0
;; box: none (all points satisfying the hypotheses)
;; reduction (oracle kl_eps_dp): For an eps-DP pair with y = dP/dQ in [e^-eps, e^eps] and E_Q[y] = 1, D_KL(P||Q) = E_Q[y log y] <= E_Q[chord(y)] = chord(1), where chord is the secant of the convex function y log y between y = e^-eps and y = e^eps (convexity: (y log y)'' = 1/y > 0). chord(1) = eps (e^eps - 1)/(e^eps + 1) = eps tanh(eps/2), attained by randomized response.
;; expected result: unsat (the negated claim has no model)
;; over-approximation notes: exp_epsilon_2_1 = exp(epsilon/2)
(set-logic QF_NRA)
(declare-fun |epsilon| () Real)
(declare-fun exp_epsilon_2_1 () Real)
(assert (> |epsilon| 0.0))
(assert (> exp_epsilon_2_1 0.0))
(assert (>= exp_epsilon_2_1 (+ 1.0 (/ |epsilon| 2.0))))
(assert (>= exp_epsilon_2_1 (+ 1.0 (/ |epsilon| 2.0) (/ (* (/ |epsilon| 2.0) (/ |epsilon| 2.0)) 2.0) (/ (* (/ |epsilon| 2.0) (/ |epsilon| 2.0) (/ |epsilon| 2.0)) 6.0))))
(assert (=> (< (/ |epsilon| 2.0) 1.0) (<= (* exp_epsilon_2_1 (- 1.0 (/ |epsilon| 2.0))) 1.0)))
(assert (=> (and (>= (/ |epsilon| 2.0) 0.0) (< (/ |epsilon| 2.0) 2.0)) (<= (* exp_epsilon_2_1 (- 2.0 (/ |epsilon| 2.0))) (+ 2.0 (/ |epsilon| 2.0)))))
(assert (=> (and (<= (/ |epsilon| 2.0) 0.0) (> (/ |epsilon| 2.0) (- 2.0))) (>= (* exp_epsilon_2_1 (- 2.0 (/ |epsilon| 2.0))) (+ 2.0 (/ |epsilon| 2.0)))))
(assert (=> (> (/ |epsilon| 2.0) 0.0) (> exp_epsilon_2_1 1.0)))
(assert (=> (< (/ |epsilon| 2.0) 0.0) (< exp_epsilon_2_1 1.0)))
(assert (=> (= (/ |epsilon| 2.0) 0.0) (= exp_epsilon_2_1 1.0)))
(assert (> |epsilon| 0.0))
;; negated claim: <= must hold, so its negation must be unsat
(assert (not (<= (* |epsilon| (/ 1.0 (+ exp_epsilon_2_1 (/ 1.0 exp_epsilon_2_1))) (+ (* (- 1.0) (/ 1.0 exp_epsilon_2_1)) exp_epsilon_2_1)) (* (/ 1.0 2.0) |epsilon| (+ (- 1.0) (* exp_epsilon_2_1 exp_epsilon_2_1))))))
(check-sat)
