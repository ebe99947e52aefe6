package dev.lockstep.transactions.workflow.definition;

import de.odysseus.el.tree.TreeBuilderException;
import de.odysseus.el.tree.impl.Builder;
import de.odysseus.el.tree.impl.ast.AstBinary;
import de.odysseus.el.tree.impl.ast.AstBoolean;
import de.odysseus.el.tree.impl.ast.AstEval;
import de.odysseus.el.tree.impl.ast.AstIdentifier;
import de.odysseus.el.tree.impl.ast.AstNested;
import de.odysseus.el.tree.impl.ast.AstNode;
import de.odysseus.el.tree.impl.ast.AstNull;
import de.odysseus.el.tree.impl.ast.AstNumber;
import de.odysseus.el.tree.impl.ast.AstString;
import de.odysseus.el.tree.impl.ast.AstUnary;
import dev.lockstep.transactions.workflow.CountersignRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Sequence flow conditions, parsed by the engine's own EL parser (JUEL) and accepted only when every node of the
 * tree is a comparison, a logical operator, parentheses, a literal or a field the condition may read: no property
 * access, no method or function call, so a condition can never reach a bean or the execution.
 */
final class ConditionExpressions {

    /** Set by the product on every decision: 'APPROVE' or 'REJECT'. */
    static final String DECISION = "decision";
    /** Set by the product once a countersign step is decided: 'APPROVED' or 'REJECTED'. */
    static final String COUNTERSIGN_RESULT = CountersignRule.RESULT;
    private static final Set<String> PRODUCT_VARIABLES = Set.of(DECISION, COUNTERSIGN_RESULT);

    private static final Set<AstBinary.Operator> OPERATORS = Set.of(AstBinary.EQ, AstBinary.NE, AstBinary.LT,
            AstBinary.LE, AstBinary.GT, AstBinary.GE, AstBinary.AND, AstBinary.OR);

    private ConditionExpressions() {
    }

    static List<DefinitionProblem> check(String flowId, String condition, Set<String> routableFields) {
        List<DefinitionProblem> problems = new ArrayList<>();
        String text = condition.strip();
        if (!text.startsWith("${")) {
            problems.add(notAllowed(flowId, "a condition is one ${...} expression"));
            return problems;
        }
        AstNode root;
        try {
            // method invocations on, so that a call parses and is refused by name below rather than as a syntax error
            root = (AstNode) new Builder(Builder.Feature.METHOD_INVOCATIONS).build(text).getRoot();
        } catch (TreeBuilderException e) {
            problems.add(notAllowed(flowId, "the condition is not a valid expression"));
            return problems;
        }
        if (!(root instanceof AstEval eval) || eval.isDeferred()) {
            problems.add(notAllowed(flowId, "a condition is exactly one ${...} expression (no #{...}, no text around it)"));
            return problems;
        }
        visit(flowId, eval.getChild(0), routableFields, problems);
        return problems;
    }

    private static void visit(String flowId, AstNode node, Set<String> fields, List<DefinitionProblem> problems) {
        if (node instanceof AstIdentifier identifier) {
            if (!PRODUCT_VARIABLES.contains(identifier.getName()) && !fields.contains(identifier.getName())) {
                problems.add(new DefinitionProblem(flowId, "UNKNOWN_FIELD", "'" + identifier.getName()
                        + "' is neither a routable field of the business type nor '" + DECISION + "' or '" + COUNTERSIGN_RESULT + "'"));
            }
            return;
        }
        boolean allowed = node instanceof AstString || node instanceof AstNumber || node instanceof AstBoolean
                || node instanceof AstNull || node instanceof AstNested
                || node instanceof AstBinary binary && OPERATORS.contains(binary.getOperator())
                || node instanceof AstUnary unary && (unary.getOperator() == AstUnary.NOT
                        || unary.getOperator() == AstUnary.NEG && unary.getChild(0) instanceof AstNumber);
        if (!allowed) {
            problems.add(notAllowed(flowId, "'" + node + "' is not allowed: a condition compares fields with literals"
                    + " (==, !=, <, <=, >, >=, and, or, not, parentheses); no property access, calls or arithmetic"));
            return;
        }
        for (int i = 0; i < node.getCardinality(); i++) {
            visit(flowId, (AstNode) node.getChild(i), fields, problems);
        }
    }

    private static DefinitionProblem notAllowed(String flowId, String detail) {
        return new DefinitionProblem(flowId, "EXPRESSION_NOT_ALLOWED", detail);
    }
}
