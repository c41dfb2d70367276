from django.urls import path

from .api import corrections, cram, discovery, discussion, graded, learning, mock

urlpatterns = [
    path("bookmarks/", learning.BookmarkListView.as_view(), name="api-bookmarks"),
    path("progress/", learning.ProgressView.as_view(), name="api-progress"),
    path("reviews/", learning.ReviewsView.as_view(), name="api-reviews"),
    path("dashboard/", learning.DashboardView.as_view(), name="api-dashboard"),
    path("search/", discovery.SearchView.as_view(), name="api-search"),
    path("questions/<int:pk>/practice/", learning.PracticeView.as_view(), name="api-practice"),
    path(
        "questions/<int:pk>/progress/", learning.ProgressSetView.as_view(), name="api-progress-set"
    ),
    path("questions/<int:pk>/rating/", learning.RatingView.as_view(), name="api-rating"),
    path(
        "questions/<int:pk>/comments/",
        discussion.QuestionCommentsView.as_view(),
        name="api-question-comments",
    ),
    path(
        "questions/<int:pk>/difficulty/", discussion.DifficultyView.as_view(), name="api-difficulty"
    ),
    path("questions/<int:pk>/up-next/", discovery.UpNextView.as_view(), name="api-up-next"),
    path(
        "concepts/<slug:slug>/comments/",
        discussion.ConceptCommentsView.as_view(),
        name="api-concept-comments",
    ),
    path("comments/<int:pk>/", discussion.CommentDetailView.as_view(), name="api-comment"),
    path(
        "comments/<int:pk>/report/",
        discussion.CommentReportView.as_view(),
        name="api-comment-report",
    ),
    path("corrections/", corrections.CorrectionListView.as_view(), name="api-corrections"),
    path(
        "corrections/<int:pk>/", corrections.CorrectionDetailView.as_view(), name="api-correction"
    ),
    # Graded practice, key points, mock interviews and cram plans
    path(
        "practice/questions/<int:pk>/variant/",
        graded.VariantView.as_view(),
        name="api-practice-variant",
    ),
    path(
        "practice/questions/<int:pk>/new-attempt/",
        graded.NewAttemptView.as_view(),
        name="api-practice-new-attempt",
    ),
    path(
        "practice/questions/<int:pk>/key-points/",
        graded.KeyPointsView.as_view(),
        name="api-practice-key-points",
    ),
    path("practice/answers/", graded.AnswerListView.as_view(), name="api-practice-answers"),
    path("practice/mocks/", mock.MockListView.as_view(), name="api-mocks"),
    path("practice/mocks/<int:pk>/", mock.MockDetailView.as_view(), name="api-mock"),
    path("practice/mocks/<int:pk>/answer/", mock.MockAnswerView.as_view(), name="api-mock-answer"),
    path("practice/mocks/<int:pk>/finish/", mock.MockFinishView.as_view(), name="api-mock-finish"),
    path("practice/plans/", cram.CramPlanView.as_view(), name="api-cram-plan"),
    path("practice/plans/items/<int:pk>/", cram.CramItemView.as_view(), name="api-cram-item"),
]
